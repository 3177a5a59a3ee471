import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { LEADER_EPOCH } from './metadata.js';

/**
 * OffsetForLeaderEpoch: the end offset of the largest leader epoch at or below the one asked.
 * Leadership never moves here, so every batch of a partition was written in its one epoch
 * (`LEADER_EPOCH`): that epoch ends at the log end; an earlier epoch is unknown (-1, -1). A
 * client whose current epoch is newer than the broker's is UNKNOWN_LEADER_EPOCH, an older one
 * FENCED_LEADER_EPOCH, as Kafka answers.
 */
export const offsetForLeaderEpoch: ApiModule = {
  key: 23,
  name: 'OffsetForLeaderEpoch',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    if (version >= 3) reader.int32();
    const topics = reader.array((r) => {
      const name = r.string();
      const partitions = r.array((p) => {
        const partition = p.int32();
        const currentEpoch = version >= 2 ? p.int32() : -1;
        const epoch = p.int32();
        p.tags();
        return { partition, currentEpoch, epoch };
      });
      r.tags();
      return { name, partitions };
    });
    reader.tags();
    const answers = topics.map((topic) => {
      const allowed = isAllowed(principal, 'topic', topic.name, 'describe');
      return {
        name: topic.name,
        partitions: topic.partitions.map(({ partition, currentEpoch, epoch }) => {
          const answer = (errorCode: number, leaderEpoch = -1, endOffset = -1) => ({
            partition,
            errorCode,
            leaderEpoch,
            endOffset,
          });
          if (!allowed) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const state = cluster.store.partition(topic.name, partition);
          if (!state) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          if (currentEpoch > LEADER_EPOCH) return answer(ErrorCode.UNKNOWN_LEADER_EPOCH);
          if (currentEpoch >= 0 && currentEpoch < LEADER_EPOCH) return answer(ErrorCode.FENCED_LEADER_EPOCH);
          if (epoch < LEADER_EPOCH) return answer(ErrorCode.NONE);
          return answer(ErrorCode.NONE, LEADER_EPOCH, state.logEndOffset);
        }),
      };
    });
    const writer = new Writer(context.flexible);
    if (version >= 2) writer.int32(0);
    writer.array(answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) => {
        pw.int16(answer.errorCode).int32(answer.partition);
        if (version >= 1) pw.int32(answer.leaderEpoch);
        pw.int64(answer.endOffset).tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
