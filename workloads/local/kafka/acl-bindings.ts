import type { AclOperation, StreamingAcl, StreamingUserSpec } from '../../runtime.js';
import { aclOperationsProblem } from '../../../crds/streaming.js';
import { CLUSTER_RESOURCE } from './acl.js';

/**
 * The users' ACLs as Kafka's ACL bindings, and back: DescribeAcls, CreateAcls and DeleteAcls
 * read and change the users' own ACLs (the platform's `acls`), so the platform stays the one
 * source of truth. Codes are Kafka's (`AclResourceType`, `PatternType`, `AclOperation`,
 * `AclPermissionType`).
 */

/** A filter's "any resource type, operation or permission". */
export const ANY = 1;
export const PatternCode = { ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const PermissionCode = { DENY: 2, ALLOW: 3 } as const;

const RESOURCE_TYPES: Record<StreamingAcl['resourceType'], number> = {
  topic: 2,
  group: 3,
  cluster: 4,
  transactional_id: 5,
};
const OPERATIONS: Record<AclOperation, number> = {
  read: 3,
  write: 4,
  create: 5,
  delete: 6,
  alter: 7,
  describe: 8,
  idempotent_write: 12,
};
const PRINCIPAL_PREFIX = 'User:';
/** The platform's ACLs apply from every host. */
export const ANY_HOST = '*';

export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permission: number;
}

export interface AclFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permission: number;
}

function codeOf<T extends string>(table: Record<T, number>, code: number): T | undefined {
  return (Object.entries(table) as [T, number][]).find(([, value]) => value === code)?.[0];
}

export function bindingsOf(users: readonly StreamingUserSpec[]): AclBinding[] {
  return users.flatMap((user) =>
    user.acls.flatMap((acl) =>
      acl.operations.map((operation) => ({
        resourceType: RESOURCE_TYPES[acl.resourceType],
        resourceName: acl.name,
        patternType: acl.patternType === 'literal' ? PatternCode.LITERAL : PatternCode.PREFIXED,
        principal: `${PRINCIPAL_PREFIX}${user.name}`,
        host: ANY_HOST,
        operation: OPERATIONS[operation],
        permission: acl.permission === 'allow' ? PermissionCode.ALLOW : PermissionCode.DENY,
      })),
    ),
  );
}

/** Kafka's filter rules: ANY and null match everything; MATCH also matches `*` and prefixes. */
export function matchesFilter(binding: AclBinding, filter: AclFilter): boolean {
  if (filter.resourceType !== ANY && filter.resourceType !== binding.resourceType) return false;
  if (filter.principal !== null && filter.principal !== binding.principal) return false;
  if (filter.host !== null && filter.host !== binding.host) return false;
  if (filter.operation !== ANY && filter.operation !== binding.operation) return false;
  if (filter.permission !== ANY && filter.permission !== binding.permission) return false;
  if (filter.patternType === PatternCode.MATCH) {
    if (filter.resourceName === null) return true;
    return binding.patternType === PatternCode.LITERAL
      ? binding.resourceName === filter.resourceName || binding.resourceName === '*'
      : filter.resourceName.startsWith(binding.resourceName);
  }
  if (filter.patternType !== PatternCode.ANY && filter.patternType !== binding.patternType) return false;
  return filter.resourceName === null || filter.resourceName === binding.resourceName;
}

/** The user a binding's principal names (`User:name`), if it is one. */
export function userNameOf(principal: string): string | undefined {
  return principal.startsWith(PRINCIPAL_PREFIX) ? principal.slice(PRINCIPAL_PREFIX.length) : undefined;
}

/** Why a binding cannot be one of the platform's ACLs, if it cannot. */
export function bindingProblem(binding: AclBinding): string | undefined {
  if (!codeOf(RESOURCE_TYPES, binding.resourceType))
    return 'only topic, group, transactional id and cluster ACLs are kept';
  if (binding.patternType !== PatternCode.LITERAL && binding.patternType !== PatternCode.PREFIXED)
    return 'the pattern type must be LITERAL or PREFIXED';
  if (!codeOf(OPERATIONS, binding.operation))
    return 'the operation must be READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE or IDEMPOTENT_WRITE';
  const onCluster = binding.resourceType === RESOURCE_TYPES.cluster;
  const operation = codeOf(OPERATIONS, binding.operation)!;
  if (aclOperationsProblem(codeOf(RESOURCE_TYPES, binding.resourceType)!, [operation]))
    return "the cluster resource takes ALTER, DESCRIBE and IDEMPOTENT_WRITE only, and IDEMPOTENT_WRITE is the cluster's alone";
  if (onCluster && (binding.resourceName !== CLUSTER_RESOURCE || binding.patternType !== PatternCode.LITERAL))
    return `the cluster resource is the literal ${CLUSTER_RESOURCE}`;
  if (binding.permission !== PermissionCode.ALLOW && binding.permission !== PermissionCode.DENY)
    return 'the permission must be ALLOW or DENY';
  if (binding.host !== ANY_HOST) return 'ACLs apply from every host: the host must be *';
  if (!userNameOf(binding.principal)) return 'the principal must be User:<name>';
  return undefined;
}

/** The user's ACLs with `binding` added (an entry of the same resource gains the operation). */
export function withBinding(user: StreamingUserSpec, binding: AclBinding): StreamingUserSpec {
  const resourceType = codeOf(RESOURCE_TYPES, binding.resourceType)!;
  const operation = codeOf(OPERATIONS, binding.operation)!;
  const patternType = binding.patternType === PatternCode.LITERAL ? 'literal' : 'prefixed';
  const permission = binding.permission === PermissionCode.ALLOW ? 'allow' : 'deny';
  const same = (acl: StreamingAcl) =>
    acl.resourceType === resourceType &&
    acl.patternType === patternType &&
    acl.name === binding.resourceName &&
    acl.permission === permission;
  const existing = user.acls.find(same);
  if (existing?.operations.includes(operation)) return user;
  const acls = existing
    ? user.acls.map((acl) =>
        acl === existing ? { ...acl, operations: [...acl.operations, operation] } : acl,
      )
    : [
        ...user.acls,
        { resourceType, patternType, name: binding.resourceName, operations: [operation], permission },
      ];
  return { ...user, acls: acls as StreamingAcl[] };
}

/** The user's ACLs without the bindings `filter` matches (entries left empty go). */
export function withoutMatching(user: StreamingUserSpec, filter: AclFilter): StreamingUserSpec {
  const acls = user.acls
    .map((acl) => ({
      ...acl,
      operations: acl.operations.filter(
        (operation) =>
          !matchesFilter(bindingsOf([{ ...user, acls: [{ ...acl, operations: [operation] }] }])[0]!, filter),
      ),
    }))
    .filter((acl) => acl.operations.length > 0);
  return { ...user, acls };
}
