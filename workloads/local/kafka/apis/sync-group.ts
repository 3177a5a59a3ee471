import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** SyncGroup: the leader hands in every member's assignment; each member gets its own. */
export const syncGroup: ApiModule = {
  key: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 3,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const generationId = reader.int32();
    const memberId = reader.string();
    if (version >= 3) reader.nullableString();
    const assignments = reader.array((r) => ({ memberId: r.string(), assignment: Buffer.from(r.bytes()) }));
    const result = isAllowed(principal, 'group', groupId, 'read')
      ? await cluster.groups.sync(groupId, generationId, memberId, assignments)
      : { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, assignment: Buffer.alloc(0) };
    const writer = new Writer();
    if (version >= 1) writer.int32(0);
    return writer.int16(result.errorCode).bytes(result.assignment);
  },
};
