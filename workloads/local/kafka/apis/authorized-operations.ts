import type { AclOperation } from '../../../runtime.js';
import { isAllowed, type Principal, type ResourceType } from '../acl.js';

/** Kafka's "authorized operations not asked for". */
export const OPERATIONS_OMITTED = -2147483648;

/** Kafka's AclOperation codes of the operations the platform's ACLs grant. */
const OPERATION_CODES: Record<AclOperation, number> = {
  read: 3,
  write: 4,
  create: 5,
  delete: 6,
  alter: 7,
  describe: 8,
  idempotent_write: 12,
};

/**
 * The bit set Metadata and DescribeGroups answer when a client asks which operations it may do on
 * a resource (`includeAuthorizedOperations`): bit n for AclOperation code n.
 */
export function authorizedOperations(
  principal: Principal,
  type: ResourceType,
  name: string,
  asked: boolean,
): number {
  if (!asked) return OPERATIONS_OMITTED;
  let bits = 0;
  for (const [operation, code] of Object.entries(OPERATION_CODES) as [AclOperation, number][])
    if (isAllowed(principal, type, name, operation)) bits |= 1 << code;
  return bits;
}
