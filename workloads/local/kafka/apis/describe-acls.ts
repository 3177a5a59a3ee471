import { bindingsOf, matchesFilter, type AclBinding, type AclFilter } from '../acl-bindings.js';
import { ErrorCode } from '../errors.js';
import { Writer, type Reader } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { mayManageAcls } from './acl-access.js';

/** Reads an ACL filter of DescribeAcls and DeleteAcls (the pattern type from v1; LITERAL before). */
export function readAclFilter(reader: Reader, version: number): AclFilter {
  const resourceType = reader.int8();
  const resourceName = reader.nullableString();
  const patternType = version >= 1 ? reader.int8() : 3;
  return {
    resourceType,
    resourceName,
    patternType,
    principal: reader.nullableString(),
    host: reader.nullableString(),
    operation: reader.int8(),
    permission: reader.int8(),
  };
}

/** DescribeAcls: the users' ACLs as Kafka's bindings, grouped by resource, that match the filter. */
export const describeAcls: ApiModule = {
  key: 29,
  name: 'DescribeAcls',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const filter = readAclFilter(reader, version);
    reader.tags();
    const writer = new Writer(context.flexible).int32(0);
    if (!mayManageAcls(principal, 'describe')) {
      return writer
        .int16(ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        .nullableString('Listing ACLs needs DESCRIBE (or ALTER) on the cluster resource kafka-cluster.')
        .array([], () => undefined)
        .tags();
    }
    const resources = new Map<string, AclBinding[]>();
    for (const binding of bindingsOf(cluster.userSpecs()).filter((entry) => matchesFilter(entry, filter))) {
      const key = `${binding.resourceType}\u0000${binding.patternType}\u0000${binding.resourceName}`;
      resources.set(key, [...(resources.get(key) ?? []), binding]);
    }
    writer.int16(ErrorCode.NONE).nullableString(null);
    writer.array([...resources.values()], (w, bindings) => {
      const first = bindings[0]!;
      w.int8(first.resourceType).string(first.resourceName);
      if (version >= 1) w.int8(first.patternType);
      w.array(bindings, (bw, binding) =>
        bw
          .string(binding.principal)
          .string(binding.host)
          .int8(binding.operation)
          .int8(binding.permission)
          .tags(),
      );
      w.tags();
    });
    return writer.tags();
  },
};
