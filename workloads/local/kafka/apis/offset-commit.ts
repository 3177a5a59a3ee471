import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { CommittedOffset } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/**
 * OffsetCommit: checked against the group's generation and member (a commit with generation -1
 * and no member is taken only for a group without members), stored durably, and recorded in the
 * lag window.
 */
export const offsetCommit: ApiModule = {
  key: 8,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 9,
  flexibleVersion: 8,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const generationId = version >= 1 ? reader.int32() : -1;
    const memberId = version >= 1 ? reader.string() : '';
    if (version >= 7) reader.nullableString();
    if (version >= 2 && version <= 4) reader.int64();
    const topics = reader.array((topicReader) => {
      const name = topicReader.string();
      const partitions = topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        const offset = partitionReader.int64();
        if (version >= 6) partitionReader.int32();
        if (version === 1) partitionReader.int64();
        const metadata = partitionReader.nullableString();
        partitionReader.tags();
        return { partition, offset, metadata };
      });
      topicReader.tags();
      return { name, partitions };
    });
    reader.tags();
    const groupError = !isAllowed(principal, 'group', groupId, 'read')
      ? ErrorCode.GROUP_AUTHORIZATION_FAILED
      : cluster.consumerGroups.group(groupId)
        ? cluster.consumerGroups.validateCommit(groupId, generationId, memberId)
        : cluster.groups.validateCommit(groupId, generationId, memberId);
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
            accepted.push({
              topic: topic.name,
              partition: entry.partition,
              offset: entry.offset,
              metadata: entry.metadata,
              commitTime: now,
            });
          }
          return { partition: entry.partition, errorCode };
        }),
      };
    });
    if (accepted.length > 0) {
      await cluster.store.commitOffsets(groupId, accepted);
      cluster.offsetsCommitted(groupId, accepted);
    }
    const writer = new Writer(context.flexible);
    if (version >= 3) writer.int32(0);
    writer.array(answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, answer) =>
        pw.int32(answer.partition).int16(answer.errorCode).tags(),
      );
      w.tags();
    });
    return writer.tags();
  },
};
