import type { StreamingUserSpec } from '../../../runtime.js';
import { bindingsOf, matchesFilter, withoutMatching } from '../acl-bindings.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { mayManageAcls } from './acl-access.js';
import { readAclFilter } from './describe-acls.js';

/** DeleteAcls: removes from the users' ACLs every binding a filter matches, and lists them. */
export const deleteAcls: ApiModule = {
  key: 31,
  name: 'DeleteAcls',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const filters = reader.array((r) => {
      const filter = readAclFilter(r, version);
      r.tags();
      return filter;
    });
    reader.tags();
    const allowed = mayManageAcls(principal, 'alter');
    let users: StreamingUserSpec[] = cluster.userSpecs();
    const changed = new Set<string>();
    const results = filters.map((filter) => {
      if (!allowed)
        return {
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          message: 'Deleting ACLs needs ALTER on the cluster resource kafka-cluster.',
          matching: [],
        };
      const matching = bindingsOf(users).filter((binding) => matchesFilter(binding, filter));
      users = users.map((user) => {
        const after = withoutMatching(user, filter);
        if (JSON.stringify(after.acls) !== JSON.stringify(user.acls)) changed.add(user.name);
        return after;
      });
      return { errorCode: ErrorCode.NONE, message: null, matching };
    });
    cluster.saveAclChanges(users.filter((user) => changed.has(user.name)));
    if (changed.size > 0) context.log.info({ users: [...changed] }, 'ACLs deleted over the Kafka protocol');
    const writer = new Writer(context.flexible).int32(0);
    writer.array(results, (w, result) => {
      w.int16(result.errorCode).nullableString(result.message);
      w.array(result.matching, (mw, binding) => {
        mw.int16(ErrorCode.NONE).nullableString(null).int8(binding.resourceType).string(binding.resourceName);
        if (version >= 1) mw.int8(binding.patternType);
        mw.string(binding.principal)
          .string(binding.host)
          .int8(binding.operation)
          .int8(binding.permission)
          .tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
