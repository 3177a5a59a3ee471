import type { StreamingUserSpec } from '../../../runtime.js';
import { bindingProblem, userNameOf, withBinding, type AclBinding } from '../acl-bindings.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { mayManageAcls } from './acl-access.js';

/**
 * CreateAcls: each binding becomes an operation of its user's ACLs (`User:<name>` must be a user
 * of the cluster), saved as the platform saves users and shown by its API and objects.
 */
export const createAcls: ApiModule = {
  key: 30,
  name: 'CreateAcls',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const creations = reader.array((r): AclBinding => {
      const resourceType = r.int8();
      const resourceName = r.string();
      const patternType = version >= 1 ? r.int8() : 3;
      const binding = {
        resourceType,
        resourceName,
        patternType,
        principal: r.string(),
        host: r.string(),
        operation: r.int8(),
        permission: r.int8(),
      };
      r.tags();
      return binding;
    });
    reader.tags();
    const allowed = mayManageAcls(principal, 'alter');
    const users = new Map(cluster.userSpecs().map((user) => [user.name, user]));
    const changed = new Map<string, StreamingUserSpec>();
    const results = creations.map((binding) => {
      if (!allowed)
        return {
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          message: 'Creating ACLs needs ALTER on the cluster resource kafka-cluster.',
        };
      const problem = bindingProblem(binding);
      if (problem) return { errorCode: ErrorCode.INVALID_REQUEST, message: problem };
      const name = userNameOf(binding.principal)!;
      const user = changed.get(name) ?? users.get(name);
      if (!user)
        return {
          errorCode: ErrorCode.INVALID_REQUEST,
          message: `${binding.principal} is not a user of this cluster`,
        };
      changed.set(name, withBinding(user, binding));
      return { errorCode: ErrorCode.NONE, message: null };
    });
    cluster.saveAclChanges([...changed.values()]);
    if (changed.size > 0)
      context.log.info({ users: [...changed.keys()] }, 'ACLs created over the Kafka protocol');
    return new Writer(context.flexible)
      .int32(0)
      .array(results, (w, result) => w.int16(result.errorCode).nullableString(result.message).tags())
      .tags();
  },
};
