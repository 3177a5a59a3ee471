/**
 * Ids of the VPC family. VPCs and subnets are uuids; the other parts use AWS's style, a prefix and
 * 17 hex digits. Every id is also a valid object name, so the REST id and the object name agree.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export type PartPrefix = 'sg' | 'acl' | 'rtb' | 'igw' | 'nat' | 'eipalloc';

const HEX_DIGITS = 17;

export const PART_ID = /^(sg|acl|rtb|igw|nat|eipalloc)-[0-9a-f]{17}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newVpcId(): string {
  return randomUUID();
}

export function newSubnetId(): string {
  return randomUUID();
}

export function newPartId(prefix: PartPrefix): string {
  return `${prefix}-${randomBytes(9).toString('hex').slice(0, HEX_DIGITS)}`;
}

/**
 * The id of a part the VPC's controller creates itself (main route table, default ACL and group),
 * derived from the VPC's uid so that a retried reconcile finds the part instead of making another.
 */
export function defaultPartId(prefix: PartPrefix, vpcUid: string, role: string): string {
  const digest = createHash('sha256').update(`${vpcUid}/${role}`).digest('hex');
  return `${prefix}-${digest.slice(0, HEX_DIGITS)}`;
}

export function partIdPattern(prefix: PartPrefix): string {
  return `^${prefix}-[0-9a-f]{${HEX_DIGITS}}$`;
}
