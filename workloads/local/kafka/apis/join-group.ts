import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** JoinGroup: answered when the rebalance completes (every member rejoined, or its timeout). */
export const joinGroup: ApiModule = {
  key: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 5,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const sessionTimeoutMs = reader.int32();
    const rebalanceTimeoutMs = version >= 1 ? reader.int32() : sessionTimeoutMs;
    const memberId = reader.string();
    const groupInstanceId = version >= 5 ? reader.nullableString() : null;
    const protocolType = reader.string();
    const protocols = reader.array((r) => ({ name: r.string(), metadata: Buffer.from(r.bytes()) }));
    const result = !isAllowed(principal, 'group', groupId, 'read')
      ? {
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
          generationId: -1,
          protocolName: '',
          leader: '',
          memberId,
          members: [],
        }
      : groupId === ''
        ? {
            errorCode: ErrorCode.INVALID_GROUP_ID,
            generationId: -1,
            protocolName: '',
            leader: '',
            memberId,
            members: [],
          }
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
    const writer = new Writer();
    if (version >= 2) writer.int32(0);
    writer
      .int16(result.errorCode)
      .int32(result.generationId)
      .string(result.protocolName)
      .string(result.leader)
      .string(result.memberId);
    return writer.array(result.members, (w, member) => {
      w.string(member.memberId);
      if (version >= 5) w.nullableString(member.groupInstanceId);
      w.bytes(member.metadata);
    });
  },
};
