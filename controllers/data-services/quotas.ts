/**
 * Quotas of the managed data services. A create claims its share of each quota in the data plane,
 * in one transaction serialised per organization (the mechanism the VPC limit uses), so racing
 * creates cannot overshoot; the resource's finalizer releases the claims once it is gone.
 */
import type { QuotasConfig } from '../../config/quotas.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { LOCK_CLASSES, serializedTransaction } from '../../data-plane/serialized-transaction.js';
import type { DatabaseEngineName } from '../../crds/data-services.js';
import { sizedByMemory } from './engine.js';

export type QuotaName = 'databases' | 'database_storage_gb' | 'nfs_shares' | 'nfs_storage_gb' | 'backups';

/** The first key of the advisory lock: the class "quota claims". */
const QUOTA_LOCK_CLASS = LOCK_CLASSES.quotaClaims;

export function quotaLimit(config: QuotasConfig, quota: QuotaName): number | null {
  switch (quota) {
    case 'databases':
      return config.databases;
    case 'database_storage_gb':
      return config.databaseStorageGb;
    case 'nfs_shares':
      return config.nfsShares;
    case 'nfs_storage_gb':
      return config.nfsStorageGb;
    case 'backups':
      return config.backups;
  }
}

/** What one database counts: itself, and its storage unless it is sized by memory. */
export function databaseQuotaAmounts(engine: DatabaseEngineName, storageGb: number): QuotaAmounts {
  return sizedByMemory(engine) ? { databases: 1 } : { databases: 1, database_storage_gb: storageGb };
}

export function shareQuotaAmounts(sizeGb: number): QuotaAmounts {
  return { nfs_shares: 1, nfs_storage_gb: sizeGb };
}

export type QuotaAmounts = Partial<Record<QuotaName, number>>;

export type ClaimResult =
  { outcome: 'claimed' } | { outcome: 'exceeded'; quota: QuotaName; limit: number; used: number };

/**
 * Claims `amounts` for one resource, all or nothing. A resource's existing claim on a quota is
 * replaced, not added to, so a retried create or a grow counts once.
 */
export async function claimQuota(
  database: DataPlane,
  config: QuotasConfig,
  request: { namespace: string; resourceId: string; amounts: QuotaAmounts },
  now: Date,
): Promise<ClaimResult> {
  return serializedTransaction(
    database,
    { lockClass: QUOTA_LOCK_CLASS, key: request.namespace },
    async (trx) => {
      const rows = await trx
        .selectFrom('quota_claims')
        .select(['quota', 'resource_id', 'amount'])
        .where('namespace', '=', request.namespace)
        .execute();
      for (const [quota, amount] of Object.entries(request.amounts) as [QuotaName, number][]) {
        const limit = quotaLimit(config, quota);
        if (limit === null) continue;
        const used = rows
          .filter((row) => row.quota === quota && row.resource_id !== request.resourceId)
          .reduce((sum, row) => sum + row.amount, 0);
        if (used + amount > limit) return { outcome: 'exceeded', quota, limit, used };
      }
      for (const [quota, amount] of Object.entries(request.amounts) as [QuotaName, number][]) {
        await trx
          .insertInto('quota_claims')
          .values({
            namespace: request.namespace,
            quota,
            resource_id: request.resourceId,
            amount,
            created_at: now.toISOString(),
          })
          .onConflict((conflict) =>
            conflict.columns(['namespace', 'quota', 'resource_id']).doUpdateSet({ amount }),
          )
          .execute();
      }
      return { outcome: 'claimed' };
    },
  );
}

/** Releases every claim of a resource; idempotent. */
export async function releaseQuota(
  database: DataPlane,
  namespace: string,
  resourceId: string,
): Promise<void> {
  await database.kysely
    .deleteFrom('quota_claims')
    .where('namespace', '=', namespace)
    .where('resource_id', '=', resourceId)
    .execute();
}

/** What an organization uses of each quota. */
export async function quotaUsage(database: DataPlane, namespace: string): Promise<Record<QuotaName, number>> {
  const rows = await database.kysely
    .selectFrom('quota_claims')
    .select(['quota'])
    .select((eb) => eb.fn.sum<number>('amount').as('used'))
    .where('namespace', '=', namespace)
    .groupBy('quota')
    .execute();
  const usage: Record<QuotaName, number> = {
    databases: 0,
    database_storage_gb: 0,
    nfs_shares: 0,
    nfs_storage_gb: 0,
    backups: 0,
  };
  for (const row of rows) usage[row.quota as QuotaName] = Number(row.used);
  return usage;
}

/** The 429's message: which quota, what it is, and what to do. */
export function quotaExceededMessage(result: Extract<ClaimResult, { outcome: 'exceeded' }>): string {
  return `quota ${result.quota} exceeded: the organization uses ${result.used} of ${result.limit}; delete resources or ask for a higher quota`;
}
