/**
 * Race-free overlap checks. Two requests (or two apiserver replicas) creating overlapping VPCs
 * must not both succeed, and the object store cannot say "create unless another object's block
 * overlaps". So every block is first claimed in the data plane: one transaction reads the
 * organization's claims, checks overlap and the VPC limit, and inserts the claim. Transactions of
 * one organization are serialised: on SQLite `begin immediate` takes the single write lock up
 * front; on PostgreSQL a transaction-scoped advisory lock keyed by the namespace does, so
 * organizations never wait on each other. The claim is released when the resource's finalizer
 * runs.
 */
import type { Transaction } from 'kysely';
import { LOCK_CLASSES, serializedTransaction } from '../../data-plane/serialized-transaction.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { DataPlaneSchema, VpcCidrClaimsTable } from '../../data-plane/schema.js';
import { overlaps, parseCidr, type Cidr } from './ipam.js';

/** The first key of the two-key advisory lock: the class "VPC CIDR claims". */
const ADVISORY_LOCK_CLASS = LOCK_CLASSES.cidrClaims;

export type CidrClaim = VpcCidrClaimsTable;

export interface CidrClaimRequest {
  namespace: string;
  kind: CidrClaim['kind'];
  scope: string;
  resourceId: string;
  resourceName: string;
  cidr: string;
  /** For VPCs: claims of kind Vpc the namespace may hold, this one included. */
  limit?: number;
}

export type ClaimOutcome =
  { outcome: 'claimed' } | { outcome: 'overlap'; holder: CidrClaim } | { outcome: 'limit'; limit: number };

export const regionScope = (region: string) => `region:${region}`;
export const vpcScope = (vpcId: string) => `vpc:${vpcId}`;

/** Runs `work` holding the namespace's claim lock. */
export async function withClaimLock<T>(
  database: DataPlane,
  namespace: string,
  work: (trx: Transaction<DataPlaneSchema>) => Promise<T>,
): Promise<T> {
  return serializedTransaction(database, { lockClass: ADVISORY_LOCK_CLASS, key: namespace }, work);
}

/**
 * Claims `cidr` for the resource unless a sibling in the scope overlaps it or the limit is
 * reached. Idempotent: the resource's own claim is updated, never counted against it.
 */
export async function claimCidr(
  database: DataPlane,
  request: CidrClaimRequest,
  now: Date,
): Promise<ClaimOutcome> {
  const wanted = parseCidr(request.cidr);
  return withClaimLock(database, request.namespace, async (trx) => {
    const claims = trx.selectFrom('vpc_cidr_claims').where('namespace', '=', request.namespace);
    const own = await claims
      .select(['kind', 'scope', 'cidr_block', 'resource_name'])
      .where('resource_id', '=', request.resourceId)
      .executeTakeFirst();
    // Every claim was checked against the claims made before it, and every later one against it:
    // a claim that stays as it is cannot have come to overlap. Reconciles repeat their claim often.
    if (own && own.kind === request.kind && own.scope === request.scope && own.cidr_block === request.cidr) {
      if (own.resource_name !== request.resourceName) {
        await trx
          .updateTable('vpc_cidr_claims')
          .set({ resource_name: request.resourceName })
          .where('namespace', '=', request.namespace)
          .where('resource_id', '=', request.resourceId)
          .execute();
      }
      return { outcome: 'claimed' };
    }
    // A new or changed claim reads its scope's blocks: only the columns the check needs, and
    // counts in SQL, so a namespace holding thousands of claims costs little per claim.
    const siblings = await claims
      .select(['resource_id', 'cidr_block'])
      .where('scope', '=', request.scope)
      .where('resource_id', '!=', request.resourceId)
      .execute();
    const clash = siblings.find((claim) => overlaps(parseCidr(claim.cidr_block), wanted));
    if (clash) {
      const holder = await claims
        .selectAll()
        .where('resource_id', '=', clash.resource_id)
        .executeTakeFirstOrThrow();
      return { outcome: 'overlap', holder };
    }
    if (!own && request.limit !== undefined) {
      const { held } = await claims
        .select((eb) => eb.fn.countAll<number>().as('held'))
        .where('kind', '=', request.kind)
        .where('resource_id', '!=', request.resourceId)
        .executeTakeFirstOrThrow();
      if (Number(held) >= request.limit) return { outcome: 'limit', limit: request.limit };
    }
    if (own) {
      await trx
        .updateTable('vpc_cidr_claims')
        .set({ scope: request.scope, cidr_block: request.cidr, resource_name: request.resourceName })
        .where('namespace', '=', request.namespace)
        .where('resource_id', '=', request.resourceId)
        .execute();
    } else {
      await trx
        .insertInto('vpc_cidr_claims')
        .values({
          namespace: request.namespace,
          resource_id: request.resourceId,
          kind: request.kind,
          scope: request.scope,
          resource_name: request.resourceName,
          cidr_block: request.cidr,
          created_at: now.toISOString(),
        })
        .execute();
    }
    return { outcome: 'claimed' };
  });
}

export async function releaseCidrClaim(
  database: DataPlane,
  namespace: string,
  resourceId: string,
): Promise<void> {
  await database.kysely
    .deleteFrom('vpc_cidr_claims')
    .where('namespace', '=', namespace)
    .where('resource_id', '=', resourceId)
    .execute();
}

/** Releases the VPC's own claim and those of its subnets. */
export async function releaseVpcClaims(database: DataPlane, namespace: string, vpcId: string): Promise<void> {
  await database.kysely
    .deleteFrom('vpc_cidr_claims')
    .where('namespace', '=', namespace)
    .where((eb) => eb.or([eb('resource_id', '=', vpcId), eb('scope', '=', vpcScope(vpcId))]))
    .execute();
}

/** The blocks claimed in a scope. */
export async function claimedBlocks(database: DataPlane, namespace: string, scope: string): Promise<Cidr[]> {
  const rows = await database.kysely
    .selectFrom('vpc_cidr_claims')
    .select('cidr_block')
    .where('namespace', '=', namespace)
    .where('scope', '=', scope)
    .execute();
  return rows.map((row) => parseCidr(row.cidr_block));
}

/** VPCs the namespace holds, counted as the VPC limit counts them. */
export async function claimedVpcCount(database: DataPlane, namespace: string): Promise<number> {
  const rows = await database.kysely
    .selectFrom('vpc_cidr_claims')
    .select('resource_id')
    .where('namespace', '=', namespace)
    .where('kind', '=', 'Vpc')
    .execute();
  return rows.length;
}
