import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** LeaveGroup: one member (v0-2) or a batch of them (v3). */
export const leaveGroup: ApiModule = {
  key: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const members =
      version >= 3
        ? reader.array((r) => {
            const member = { memberId: r.string(), groupInstanceId: r.nullableString() };
            if (version >= 5) r.nullableString();
            r.tags();
            return member;
          })
        : [{ memberId: reader.string(), groupInstanceId: null }];
    reader.tags();
    const allowed = isAllowed(principal, 'group', groupId, 'read');
    const results = members.map((member) => ({
      ...member,
      errorCode: allowed
        ? cluster.groups.leave(groupId, member.memberId)
        : ErrorCode.GROUP_AUTHORIZATION_FAILED,
    }));
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    if (version < 3) return writer.int16(results[0]!.errorCode);
    writer.int16(allowed ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED);
    writer.array(results, (w, result) => {
      w.string(result.memberId).nullableString(result.groupInstanceId).int16(result.errorCode).tags();
    });
    return writer.tags();
  },
};
