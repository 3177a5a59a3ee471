import { STREAMING_CLUSTER_RESOURCE } from '../../../crds/streaming.js';
import type { AclOperation, StreamingAcl, StreamingUserSpec } from '../../runtime.js';

/**
 * Whether a user may do an operation on a topic, group, transactional id or the cluster, from the
 * user's ACLs and its consumer group. Kafka's rules: nothing is allowed unless an ACL allows it, a
 * matching deny wins over any allow, and READ, WRITE, DELETE and ALTER each imply DESCRIBE.
 */

export type ResourceType = StreamingAcl['resourceType'];

/** The one cluster resource's name. */
export const CLUSTER_RESOURCE = STREAMING_CLUSTER_RESOURCE;

export interface Principal {
  name: string;
  /** Bypasses every ACL: the platform's own internal user. */
  superuser: boolean;
  acls: readonly StreamingAcl[];
}

const IMPLYING_DESCRIBE: readonly AclOperation[] = ['read', 'write', 'delete', 'alter'];

/** The ACLs a user's `consumerGroup` stands for: READ and DESCRIBE on that group or prefix. */
export function consumerGroupAcls(consumerGroup: string | undefined): StreamingAcl[] {
  if (!consumerGroup) return [];
  const prefixed = consumerGroup.endsWith('*');
  return [
    {
      resourceType: 'group',
      patternType: prefixed ? 'prefixed' : 'literal',
      name: prefixed ? consumerGroup.slice(0, -1) : consumerGroup,
      operations: ['read', 'describe'],
      permission: 'allow',
    },
  ];
}

export function principalOf(user: StreamingUserSpec): Principal {
  return {
    name: user.name,
    superuser: false,
    acls: [...user.acls, ...consumerGroupAcls(user.consumerGroup)],
  };
}

function matches(acl: StreamingAcl, type: ResourceType, name: string): boolean {
  if (acl.resourceType !== type) return false;
  return acl.patternType === 'literal' ? acl.name === name || acl.name === '*' : name.startsWith(acl.name);
}

function grants(acl: StreamingAcl, operation: AclOperation): boolean {
  if (acl.operations.includes(operation)) return true;
  return operation === 'describe' && acl.operations.some((granted) => IMPLYING_DESCRIBE.includes(granted));
}

export function isAllowed(
  principal: Principal,
  type: ResourceType,
  name: string,
  operation: AclOperation,
): boolean {
  if (principal.superuser) return true;
  let allowed = false;
  for (const acl of principal.acls) {
    if (!matches(acl, type, name)) continue;
    if (acl.permission === 'deny') {
      // A deny on an operation also stops what it would imply: denying DESCRIBE blocks only DESCRIBE.
      if (acl.operations.includes(operation)) return false;
    } else if (grants(acl, operation)) allowed = true;
  }
  return allowed;
}

/**
 * Whether the user may be an idempotent producer: IDEMPOTENT_WRITE on the cluster, or (since
 * Kafka 3.0, KIP-679) WRITE allowed on some topic.
 */
export function mayWriteIdempotently(principal: Principal): boolean {
  if (isAllowed(principal, 'cluster', CLUSTER_RESOURCE, 'idempotent_write')) return true;
  return principal.acls.some(
    (acl) =>
      acl.resourceType === 'topic' &&
      acl.permission === 'allow' &&
      acl.operations.includes('write') &&
      !deniesEveryTopicWrite(principal),
  );
}

/** A deny of WRITE on the literal "*" takes every topic away, whatever allows it. */
function deniesEveryTopicWrite(principal: Principal): boolean {
  return principal.acls.some(
    (acl) =>
      acl.resourceType === 'topic' &&
      acl.permission === 'deny' &&
      acl.operations.includes('write') &&
      ((acl.patternType === 'literal' && acl.name === '*') ||
        (acl.patternType === 'prefixed' && acl.name === '')),
  );
}
