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
  maxVersion: 4,
  flexibleVersion: 3,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.string();
    const groupId = reader.string();
    const producerId = reader.int64();
    const producerEpoch = reader.int16();
    // v3+ may name the consumer's generation and member, checked as for OffsetCommit.
    const member =
      version >= 3
        ? { generationId: reader.int32(), memberId: reader.string(), instanceId: reader.nullableString() }
        : undefined;
    const topics = reader.array((topicReader) => {
      const topic = {
        name: topicReader.string(),
        partitions: topicReader.array((partitionReader) => {
          const partition = partitionReader.int32();
          const offset = partitionReader.int64();
          if (version >= 2) partitionReader.int32();
          const entry = { partition, offset, metadata: partitionReader.nullableString() };
          partitionReader.tags();
          return entry;
        }),
      };
      topicReader.tags();
      return topic;
    });
    reader.tags();
    const groupError = !isAllowed(principal, 'transactional_id', transactionalId, 'write')
      ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !isAllowed(principal, 'group', groupId, 'read')
        ? ErrorCode.GROUP_AUTHORIZATION_FAILED
        : member && (member.generationId >= 0 || member.memberId !== '')
          ? cluster.groups.validateCommit(groupId, member.generationId, member.memberId)
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
    const writer = new Writer(context.flexible).int32(0);
    writer.array(answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) =>
        pw
          .int32(answer.partition)
          .int16(fencedAnswer(answer.errorCode === ErrorCode.NONE ? kept : answer.errorCode, version, 3))
          .tags(),
      );
      w.tags();
    });
    return writer.tags();
  },
};
