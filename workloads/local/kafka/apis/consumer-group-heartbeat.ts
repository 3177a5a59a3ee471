import { isAllowed } from '../acl.js';
import type { Assignment } from '../consumer-groups.js';
import { CONSUMER_HEARTBEAT_INTERVAL_MS } from '../consumer-groups.js';
import { ErrorCode } from '../errors.js';
import { Writer, type Reader } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

function readPartitions(reader: Reader): { topicId: string; partitions: number[] }[] | null {
  return reader.nullableArray((r) => {
    const entry = { topicId: r.uuid(), partitions: r.array((p) => p.int32()) };
    r.tags();
    return entry;
  });
}

/**
 * ConsumerGroupHeartbeat (KIP-848): joins, keeps and leaves a member of a consumer group of the
 * new protocol, whose partitions the broker assigns (see consumer-groups.ts). Assignments travel
 * by topic id.
 */
export const consumerGroupHeartbeat: ApiModule = {
  key: 68,
  name: 'ConsumerGroupHeartbeat',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersion: 0,
  handle(context, reader) {
    const { cluster, principal } = context;
    const groupId = reader.string();
    const memberId = reader.string();
    const memberEpoch = reader.int32();
    const instanceId = reader.nullableString();
    const rackId = reader.nullableString();
    reader.int32();
    const subscribedTopicNames = reader.nullableArray((r) => r.string());
    const serverAssignor = reader.nullableString();
    const owned = readPartitions(reader);
    reader.tags();

    const topics = cluster.store.topics();
    const nameOf = new Map(topics.map((topic) => [topic.topicId, topic.name]));
    const idOf = new Map(topics.map((topic) => [topic.name, topic.topicId]));
    const refused = (errorCode: number, message: string) => ({
      errorCode,
      errorMessage: message,
      memberId: null,
      memberEpoch: -1,
      assignment: null,
    });
    let result;
    if (cluster.coordinatorOf(groupId).nodeId !== context.brokerId)
      result = refused(ErrorCode.NOT_COORDINATOR, 'another broker coordinates this group');
    else if (!isAllowed(principal, 'group', groupId, 'read'))
      result = refused(ErrorCode.GROUP_AUTHORIZATION_FAILED, `not allowed to read group ${groupId}`);
    else if (subscribedTopicNames?.some((name) => !isAllowed(principal, 'topic', name, 'describe')))
      result = refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'not allowed to describe a subscribed topic');
    else if ((cluster.groups.group(groupId)?.members.size ?? 0) > 0)
      result = refused(
        ErrorCode.GROUP_ID_NOT_FOUND,
        `group ${groupId} is a classic group, not a consumer group`,
      );
    else {
      const ownedByName: Assignment | null =
        owned &&
        new Map(
          owned.flatMap((entry) => {
            const name = nameOf.get(entry.topicId);
            return name ? [[name, entry.partitions] as const] : [];
          }),
        );
      result = cluster.consumerGroups.heartbeat({
        groupId,
        memberId,
        memberEpoch,
        instanceId,
        rackId,
        subscribedTopicNames,
        serverAssignor,
        owned: ownedByName,
        clientId: context.clientId,
        clientHost: context.clientHost,
      });
    }
    const writer = new Writer(context.flexible)
      .int32(0)
      .int16(result.errorCode)
      .nullableString(result.errorMessage)
      .nullableString(result.memberId)
      .int32(result.memberEpoch)
      .int32(CONSUMER_HEARTBEAT_INTERVAL_MS);
    if (result.assignment === null) writer.int8(-1);
    else {
      writer.int8(1);
      const assigned = [...result.assignment].filter(([name]) => idOf.has(name));
      writer.array(assigned, (w, [name, partitions]) =>
        w
          .uuid(idOf.get(name)!)
          .array(partitions, (pw, partition) => pw.int32(partition))
          .tags(),
      );
      writer.tags();
    }
    return writer.tags();
  },
};
