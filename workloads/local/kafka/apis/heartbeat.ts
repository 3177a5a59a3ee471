import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** Heartbeat: keeps the member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
export const heartbeat: ApiModule = {
  key: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const generationId = reader.int32();
    const memberId = reader.string();
    if (version >= 3) reader.nullableString();
    reader.tags();
    const errorCode = isAllowed(principal, 'group', groupId, 'read')
      ? cluster.groups.heartbeat(groupId, generationId, memberId)
      : ErrorCode.GROUP_AUTHORIZATION_FAILED;
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    return writer.int16(errorCode).tags();
  },
};
