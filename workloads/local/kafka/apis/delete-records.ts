import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** The offset that asks to delete up to the high watermark. */
const HIGH_WATERMARK = -1;

/**
 * DeleteRecords: needs DELETE on the topic; moves each partition's log start to the offset given
 * (every record below it goes, ListOffsets earliest and Fetch follow) and answers the new low
 * watermark. An offset past the log end is OFFSET_OUT_OF_RANGE.
 */
export const deleteRecords: ApiModule = {
  key: 21,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersion: 2,
  handle(context, reader) {
    const { cluster, principal } = context;
    const topics = reader.array((r) => {
      const name = r.string();
      const partitions = r.array((p) => {
        const partition = { partition: p.int32(), offset: p.int64() };
        p.tags();
        return partition;
      });
      r.tags();
      return { name, partitions };
    });
    reader.int32();
    reader.tags();
    const answers = topics.map((topic) => {
      const allowed = isAllowed(principal, 'topic', topic.name, 'delete');
      return {
        name: topic.name,
        partitions: topic.partitions.map(({ partition, offset }) => {
          const answer = (errorCode: number, lowWatermark = -1) => ({ partition, errorCode, lowWatermark });
          if (!allowed) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const state = cluster.store.partition(topic.name, partition);
          if (!state) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          const before = offset === HIGH_WATERMARK ? state.logEndOffset : offset;
          if (before < 0 || before > state.logEndOffset) return answer(ErrorCode.OFFSET_OUT_OF_RANGE);
          const after = cluster.store.deleteRecordsBefore(topic.name, partition, before);
          context.log.info({ topic: topic.name, partition, before }, 'records deleted');
          return answer(ErrorCode.NONE, after?.logStartOffset ?? before);
        }),
      };
    });
    const writer = new Writer(context.flexible).int32(0);
    writer.array(answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) =>
        pw.int32(answer.partition).int64(answer.lowWatermark).int16(answer.errorCode).tags(),
      );
      w.tags();
    });
    return writer.tags();
  },
};
