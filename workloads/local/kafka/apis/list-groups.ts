import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/**
 * ListGroups: the groups this broker coordinates that the user may DESCRIBE, with members or
 * committed offsets; an admin client asks every broker and joins the lists, so each group shows
 * once. States (v4+) and types (v5+) filter, case-insensitively as Kafka does.
 */
export const listGroups: ApiModule = {
  key: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 3,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const states = version >= 4 ? reader.array((r) => r.string().toLowerCase()) : [];
    const types = version >= 5 ? reader.array((r) => r.string().toLowerCase()) : [];
    reader.tags();
    const groups = cluster
      .observeGroups()
      .filter((group) => cluster.coordinatorOf(group.groupId).nodeId === context.brokerId)
      .filter((group) => isAllowed(principal, 'group', group.groupId, 'describe'))
      .map((group) => ({
        groupId: group.groupId,
        state: group.state,
        protocolType: cluster.groups.group(group.groupId)?.protocolType ?? 'consumer',
        // A group with members of the KIP-848 protocol is a consumer group; any other is classic.
        type: (cluster.consumerGroups.group(group.groupId)?.members.size ?? 0) > 0 ? 'consumer' : 'classic',
      }))
      .filter((group) => states.length === 0 || states.includes(group.state.toLowerCase()))
      .filter((group) => types.length === 0 || types.includes(group.type));
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    writer.int16(ErrorCode.NONE).array(groups, (w, group) => {
      w.string(group.groupId).string(group.protocolType);
      if (version >= 4) w.string(group.state);
      if (version >= 5) w.string(group.type);
      w.tags();
    });
    return writer.tags();
  },
};
