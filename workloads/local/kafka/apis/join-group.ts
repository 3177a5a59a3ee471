import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** JoinGroup: answered when the rebalance completes (every member rejoined, or its timeout). */
export const joinGroup: ApiModule = {
  key: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 9,
  flexibleVersion: 6,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const sessionTimeoutMs = reader.int32();
    const rebalanceTimeoutMs = version >= 1 ? reader.int32() : sessionTimeoutMs;
    const memberId = reader.string();
    const groupInstanceId = version >= 5 ? reader.nullableString() : null;
    const protocolType = reader.string();
    const protocols = reader.array((r) => {
      const protocol = { name: r.string(), metadata: Buffer.from(r.bytes()) };
      r.tags();
      return protocol;
    });
    if (version >= 8) reader.nullableString();
    reader.tags();
    const refused = (errorCode: number) => ({
      errorCode,
      generationId: -1,
      protocolName: '',
      leader: '',
      memberId,
      members: [],
    });
    const result = !isAllowed(principal, 'group', groupId, 'read')
      ? refused(ErrorCode.GROUP_AUTHORIZATION_FAILED)
      : groupId === ''
        ? refused(ErrorCode.INVALID_GROUP_ID)
        : (cluster.consumerGroups.group(groupId)?.members.size ?? 0) > 0
          ? // Its members follow the consumer protocol (KIP-848): a classic member cannot join them.
            refused(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
          : await cluster.groups.join({
              groupId,
              memberId,
              groupInstanceId,
              clientId: context.clientId,
              clientHost: context.clientHost,
              sessionTimeoutMs,
              rebalanceTimeoutMs,
              protocolType,
              protocols,
            });
    const chosen = result.errorCode === ErrorCode.NONE;
    const writer = new Writer(context.flexible);
    if (version >= 2) writer.int32(0);
    writer.int16(result.errorCode).int32(result.generationId);
    if (version >= 7) writer.nullableString(chosen ? protocolType : null);
    writer.nullableString(version >= 7 && !chosen ? null : result.protocolName).string(result.leader);
    // The leader always computes the assignment: the broker runs no assignor of its own.
    if (version >= 9) writer.bool(false);
    writer.string(result.memberId).array(result.members, (w, member) => {
      w.string(member.memberId);
      if (version >= 5) w.nullableString(member.groupInstanceId);
      w.bytes(member.metadata).tags();
    });
    return writer.tags();
  },
};
