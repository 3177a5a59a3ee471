import { isAllowed } from '../acl.js';
import { UNIFORM_ASSIGNOR, type Assignment } from '../consumer-groups.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { authorizedOperations } from './authorized-operations.js';

/**
 * ConsumerGroupDescribe (KIP-848): each consumer group of the new protocol with its epochs and
 * members, their current and target assignments; from the broker coordinating it only.
 */
export const consumerGroupDescribe: ApiModule = {
  key: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersion: 0,
  handle(context, reader) {
    const { cluster, principal } = context;
    const groupIds = reader.array((r) => r.string());
    const operationsAsked = reader.bool();
    reader.tags();
    const idOf = new Map(cluster.store.topics().map((topic) => [topic.name, topic.topicId]));
    const writeAssignment = (writer: Writer, assignment: Assignment) =>
      writer
        .array(
          [...assignment].filter(([name]) => idOf.has(name)),
          (w, [name, partitions]) =>
            w
              .uuid(idOf.get(name)!)
              .string(name)
              .array(partitions, (pw, partition) => pw.int32(partition))
              .tags(),
        )
        .tags();
    const writer = new Writer(context.flexible).int32(0);
    writer.array(groupIds, (w, groupId) => {
      const allowed = isAllowed(principal, 'group', groupId, 'describe');
      const group = cluster.consumerGroups.group(groupId);
      let errorCode: number = ErrorCode.NONE;
      let message: string | null = null;
      if (cluster.coordinatorOf(groupId).nodeId !== context.brokerId) errorCode = ErrorCode.NOT_COORDINATOR;
      else if (!allowed) errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED;
      else if (!group) {
        errorCode = ErrorCode.GROUP_ID_NOT_FOUND;
        message = `group ${groupId} is not a consumer group`;
      }
      const shown = errorCode === ErrorCode.NONE ? group : undefined;
      w.int16(errorCode)
        .nullableString(message)
        .string(groupId)
        .string(shown ? cluster.consumerGroups.stateOf(shown) : 'Dead')
        .int32(shown?.groupEpoch ?? -1)
        .int32(shown?.assignmentEpoch ?? -1)
        .string(UNIFORM_ASSIGNOR);
      w.array([...(shown?.members.values() ?? [])], (mw, member) => {
        mw.string(member.memberId)
          .nullableString(member.instanceId)
          .nullableString(member.rackId)
          .int32(member.memberEpoch)
          .string(member.clientId)
          .string(member.clientHost)
          .array(member.subscribedTopicNames, (tw, name) => tw.string(name))
          .nullableString(null);
        writeAssignment(mw, member.assigned);
        writeAssignment(mw, shown!.target.get(member.memberId) ?? new Map());
        mw.tags();
      });
      w.int32(authorizedOperations(principal, 'group', groupId, operationsAsked && allowed)).tags();
    });
    return writer.tags();
  },
};
