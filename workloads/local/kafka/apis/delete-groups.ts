import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** DeleteGroups: an empty group and its committed offsets; NON_EMPTY_GROUP while it has members. */
export const deleteGroups: ApiModule = {
  key: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 1,
  handle(context, reader) {
    const { cluster, principal } = context;
    const results = reader
      .array((r) => r.string())
      .map((groupId) => {
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
    return new Writer()
      .int32(0)
      .array(results, (w, result) => w.string(result.groupId).int16(result.errorCode));
  },
};
