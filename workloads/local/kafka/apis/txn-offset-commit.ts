import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { CommittedOffset } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import { fencedAnswer } from '../transactions.js';
import type { ApiModule } from './api.js';

/**
 * TxnOffsetCommit: offsets the transaction commits if it does (WRITE on the transactional id, READ
 * on the group and each topic); nothing is visible to OffsetFetch before the commit marker.
 */
export const txnOffsetCommit: ApiModule = {
  key: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 2,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.string();
    const groupId = reader.string();
    const producerId = reader.int64();
    const producerEpoch = reader.int16();
    const topics = reader.array((topicReader) => ({
      name: topicReader.string(),
      partitions: topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        const offset = partitionReader.int64();
        if (version >= 2) partitionReader.int32();
        return { partition, offset, metadata: partitionReader.nullableString() };
      }),
    }));
    const groupError = !isAllowed(principal, 'transactional_id', transactionalId, 'write')
      ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !isAllowed(principal, 'group', groupId, 'read')
        ? ErrorCode.GROUP_AUTHORIZATION_FAILED
        : ErrorCode.NONE;
    const now = cluster.clock.now().getTime();
    const accepted: CommittedOffset[] = [];
    const answers = topics.map((topic) => {
      const readable = isAllowed(principal, 'topic', topic.name, 'read');
      const stored = cluster.store.topic(topic.name);
      return {
        name: topic.name,
        partitions: topic.partitions.map((entry) => {
          let errorCode: number = groupError;
          if (errorCode === ErrorCode.NONE && !readable) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          else if (
            errorCode === ErrorCode.NONE &&
            (!stored || entry.partition < 0 || entry.partition >= stored.partitions)
          ) {
            errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          }
          if (errorCode === ErrorCode.NONE) {
            accepted.push({ topic: topic.name, ...entry, commitTime: now });
          }
          return { partition: entry.partition, errorCode };
        }),
      };
    });
    const kept =
      accepted.length > 0
        ? cluster.transactions.commitOffsets(transactionalId, producerId, producerEpoch, groupId, accepted)
        : ErrorCode.NONE;
    const writer = new Writer().int32(0);
    return writer.array(answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) =>
        pw
          .int32(answer.partition)
          .int16(fencedAnswer(answer.errorCode === ErrorCode.NONE ? kept : answer.errorCode, version, 3)),
      );
    });
  },
};
