import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/**
 * OffsetDelete: forgets a group's committed offsets of some partitions (DELETE on the group, READ
 * on the topic). A topic the group's members are assigned is GROUP_SUBSCRIBED_TO_TOPIC; a group
 * with neither members nor offsets is GROUP_ID_NOT_FOUND, as Kafka answers.
 */
export const offsetDelete: ApiModule = {
  key: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  handle(context, reader) {
    const { cluster, principal } = context;
    const groupId = reader.string();
    const topics = reader.array((r) => ({ name: r.string(), partitions: r.array((p) => p.int32()) }));
    const writer = new Writer();
    const groupError = (errorCode: number) =>
      writer
        .int16(errorCode)
        .int32(0)
        .array([], () => undefined);
    if (!isAllowed(principal, 'group', groupId, 'delete'))
      return groupError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (cluster.coordinatorOf(groupId).nodeId !== context.brokerId)
      return groupError(ErrorCode.NOT_COORDINATOR);
    const group = cluster.observeGroups().find((candidate) => candidate.groupId === groupId);
    if (!group) return groupError(ErrorCode.GROUP_ID_NOT_FOUND);
    const subscribed = new Set(
      group.members.flatMap((member) => member.assignments.map((entry) => entry.topic)),
    );
    const answers = topics.map((topic) => {
      let errorCode: number = ErrorCode.NONE;
      if (!isAllowed(principal, 'topic', topic.name, 'read'))
        errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (!cluster.store.topic(topic.name)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (subscribed.has(topic.name)) errorCode = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
      if (errorCode === ErrorCode.NONE) {
        cluster.store.deleteCommittedOffsets(groupId, topic.name, topic.partitions);
      }
      return { name: topic.name, partitions: topic.partitions, errorCode };
    });
    return writer
      .int16(ErrorCode.NONE)
      .int32(0)
      .array(answers, (w, topic) =>
        w
          .string(topic.name)
          .array(topic.partitions, (pw, partition) => pw.int32(partition).int16(topic.errorCode)),
      );
  },
};
