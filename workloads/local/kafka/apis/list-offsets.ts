import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const LATEST = -1;
const EARLIEST = -2;
const READ_COMMITTED = 1;

/**
 * ListOffsets (v1+): the earliest, the latest, or the first offset at or after a timestamp; for a
 * read_committed reader (v2+) the latest is the last stable offset, and no answer passes it.
 */
export const listOffsets: ApiModule = {
  key: 2,
  name: 'ListOffsets',
  minVersion: 1,
  maxVersion: 5,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    reader.int32();
    const readCommitted = version >= 2 && reader.int8() === READ_COMMITTED;
    const topics = reader.array((topicReader) => {
      const name = topicReader.string();
      const describable = isAllowed(principal, 'topic', name, 'describe');
      const partitions = topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        if (version >= 4) partitionReader.int32();
        const timestamp = partitionReader.int64();
        const answer = (errorCode: number, offset = -1, at = -1) => ({
          partition,
          errorCode,
          offset,
          timestamp: at,
        });
        if (!describable) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        const state = cluster.store.topic(name) ? cluster.store.partition(name, partition) : undefined;
        if (!state) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        const end = readCommitted ? cluster.store.lastStableOffset(name, partition) : state.logEndOffset;
        if (timestamp === LATEST) return answer(ErrorCode.NONE, end);
        if (timestamp === EARLIEST) return answer(ErrorCode.NONE, state.logStartOffset);
        const offset = Math.min(cluster.store.offsetForTimestamp(name, partition, timestamp), end);
        return answer(ErrorCode.NONE, Math.max(offset, state.logStartOffset), offset < end ? timestamp : -1);
      });
      return { name, partitions };
    });
    const writer = new Writer();
    if (version >= 2) writer.int32(0);
    writer.array(topics, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) => {
        pw.int32(answer.partition).int16(answer.errorCode).int64(answer.timestamp).int64(answer.offset);
        if (version >= 4) pw.int32(0);
      });
    });
    return writer;
  },
};
