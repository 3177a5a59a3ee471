import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** ListGroups: the groups the user may DESCRIBE, with members or committed offsets. */
export const listGroups: ApiModule = {
  key: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 2,
  handle(context) {
    const { version, cluster, principal } = context;
    const groups = cluster
      .observeGroups()
      .filter((group) => isAllowed(principal, 'group', group.groupId, 'describe'))
      .map((group) => ({
        groupId: group.groupId,
        protocolType: cluster.groups.group(group.groupId)?.protocolType ?? 'consumer',
      }));
    const writer = new Writer();
    if (version >= 1) writer.int32(0);
    return writer
      .int16(ErrorCode.NONE)
      .array(groups, (w, group) => w.string(group.groupId).string(group.protocolType));
  },
};
