import type { AclOperation, StreamingAcl, StreamingUserSpec } from '../../runtime.js';

/**
 * Whether a user may do an operation on a topic or group, from the user's ACLs and its consumer
 * group. Kafka's rules: nothing is allowed unless an ACL allows it, a matching deny wins over any
 * allow, and READ, WRITE, DELETE and ALTER each imply DESCRIBE.
 */

export type ResourceType = 'topic' | 'group';

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
