import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const OPERATIONS_OMITTED = -2147483648;

/** DescribeGroups: state, protocol and members with their metadata and assignments. */
export const describeGroups: ApiModule = {
  key: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupIds = reader.array((r) => r.string());
    if (version >= 3) reader.bool();
    const writer = new Writer();
    if (version >= 1) writer.int32(0);
    return writer.array(groupIds, (w, groupId) => {
      const allowed = isAllowed(principal, 'group', groupId, 'describe');
      const group = allowed ? cluster.groups.group(groupId) : undefined;
      const members = [...(group?.members.values() ?? [])];
      w.int16(allowed ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED)
        .string(groupId)
        .string(allowed ? (group?.state ?? 'Dead') : '')
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
            .bytes(member.assignment);
        });
      if (version >= 3) w.int32(OPERATIONS_OMITTED);
    });
  },
};
