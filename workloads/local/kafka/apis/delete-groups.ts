import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** DeleteGroups: an empty group and its committed offsets; NON_EMPTY_GROUP while it has members. */
export const deleteGroups: ApiModule = {
  key: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersion: 2,
  handle(context, reader) {
    const { cluster, principal } = context;
    const groupIds = reader.array((r) => r.string());
    reader.tags();
    const results = groupIds.map((groupId) => {
      if (!isAllowed(principal, 'group', groupId, 'delete'))
        return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
      const hadOffsets = cluster.store.committedOffsets(groupId).length > 0;
      let errorCode = cluster.groups.delete(groupId);
      if (errorCode === ErrorCode.GROUP_ID_NOT_FOUND && hadOffsets) errorCode = ErrorCode.NONE;
      if (errorCode === ErrorCode.NONE) {
        cluster.store.deleteGroupOffsets(groupId);
        cluster.commitWindows.forget(groupId);
      }
      return { groupId, errorCode };
    });
    return new Writer(context.flexible)
      .int32(0)
      .array(results, (w, result) => w.string(result.groupId).int16(result.errorCode).tags())
      .tags();
  },
};
