import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { LEADER_EPOCH } from './metadata.js';

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;
const LATEST_TIERED = -5;
const READ_COMMITTED = 1;

/**
 * ListOffsets (v1+): the earliest, the latest, or the first offset at or after a timestamp (-1
 * when every record is older); for a read_committed reader (v2+) the latest is the last stable
 * offset, and no answer passes it. v7 adds the record with the largest timestamp; v8 the earliest
 * local offset and v9 the latest tiered one, which without tiered storage are the log start and
 * none (-1).
 */
export const listOffsets: ApiModule = {
  key: 2,
  name: 'ListOffsets',
  minVersion: 1,
  maxVersion: 9,
  flexibleVersion: 6,
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
        partitionReader.tags();
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
        if (timestamp === EARLIEST || timestamp === EARLIEST_LOCAL)
          return answer(ErrorCode.NONE, state.logStartOffset);
        if (timestamp === LATEST_TIERED) return answer(ErrorCode.NONE);
        if (timestamp === MAX_TIMESTAMP) {
          const newest = cluster.store.maxTimestampRecord(name, partition);
          return newest ? answer(ErrorCode.NONE, newest.offset, newest.timestamp) : answer(ErrorCode.NONE);
        }
        const offset = cluster.store.offsetForTimestamp(name, partition, timestamp);
        if (offset >= end) return answer(ErrorCode.NONE);
        return answer(ErrorCode.NONE, Math.max(offset, state.logStartOffset), timestamp);
      });
      topicReader.tags();
      return { name, partitions };
    });
    reader.tags();
    const writer = new Writer(context.flexible);
    if (version >= 2) writer.int32(0);
    writer.array(topics, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) => {
        pw.int32(answer.partition).int16(answer.errorCode).int64(answer.timestamp).int64(answer.offset);
        if (version >= 4) pw.int32(LEADER_EPOCH);
        pw.tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
