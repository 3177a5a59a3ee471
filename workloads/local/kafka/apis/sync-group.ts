import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** SyncGroup: the leader hands in every member's assignment; each member gets its own. */
export const syncGroup: ApiModule = {
  key: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 4,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const generationId = reader.int32();
    const memberId = reader.string();
    if (version >= 3) reader.nullableString();
    const protocolType = version >= 5 ? reader.nullableString() : null;
    const protocolName = version >= 5 ? reader.nullableString() : null;
    const assignments = reader.array((r) => {
      const assignment = { memberId: r.string(), assignment: Buffer.from(r.bytes()) };
      r.tags();
      return assignment;
    });
    reader.tags();
    const result = isAllowed(principal, 'group', groupId, 'read')
      ? await cluster.groups.sync(groupId, generationId, memberId, assignments)
      : { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, assignment: Buffer.alloc(0) };
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    writer.int16(result.errorCode);
    if (version >= 5) {
      // The group's own protocol type and name, which the client checks against what it joined with.
      const group = cluster.groups.group(groupId);
      writer
        .nullableString(group?.protocolType || protocolType)
        .nullableString(group?.protocolName || protocolName);
    }
    return writer.bytes(result.assignment).tags();
  },
};
