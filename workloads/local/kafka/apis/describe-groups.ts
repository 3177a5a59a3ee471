import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { authorizedOperations } from './authorized-operations.js';

/**
 * DescribeGroups: state, protocol and members with their metadata and assignments. A broker
 * describes only the groups it coordinates (NOT_COORDINATOR for the others), as Kafka's do.
 */
export const describeGroups: ApiModule = {
  key: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 5,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupIds = reader.array((r) => r.string());
    const operationsAsked = version >= 3 ? reader.bool() : false;
    reader.tags();
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    writer.array(groupIds, (w, groupId) => {
      const allowed = isAllowed(principal, 'group', groupId, 'describe');
      const coordinated = cluster.coordinatorOf(groupId).nodeId === context.brokerId;
      const group = allowed && coordinated ? cluster.groups.group(groupId) : undefined;
      const members = [...(group?.members.values() ?? [])];
      let errorCode: number = ErrorCode.NONE;
      if (!allowed) errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED;
      else if (!coordinated) errorCode = ErrorCode.NOT_COORDINATOR;
      w.int16(errorCode)
        .string(groupId)
        .string(errorCode === ErrorCode.NONE ? (group?.state ?? 'Dead') : '')
        .string(group?.protocolType ?? '')
        .string(group?.state === 'Stable' || group?.state === 'CompletingRebalance' ? group.protocolName : '')
        .array(members, (mw, member) => {
          mw.string(member.memberId);
          if (version >= 4) mw.nullableString(member.groupInstanceId);
          const metadata = member.protocols.find(
            (protocol) => protocol.name === group?.protocolName,
          )?.metadata;
          mw.string(member.clientId)
            .string(member.clientHost)
            .bytes(metadata ?? Buffer.alloc(0))
            .bytes(member.assignment)
            .tags();
        });
      if (version >= 3)
        w.int32(authorizedOperations(principal, 'group', groupId, operationsAsked && allowed));
      w.tags();
    });
    return writer.tags();
  },
};
