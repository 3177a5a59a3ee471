/**
 * The data-plane rows of a vault cluster whose VaultCluster object is gone: its controller removes
 * them when it sees the deletion, so these are what an interrupted deletion left. The cluster's
 * other rows go before its keyring, in one transaction, so a half-removed cluster never remains.
 */
import type { GcScope, Leftover, ResourceCollector } from './types.js';
import { orphanCutoff } from './types.js';

/** Every vault table but the keyring, which goes last. */
const VAULT_ROW_TABLES = [
  'vault_secret_versions',
  'vault_secret_metadata',
  'vault_policies',
  'vault_tokens',
  'vault_auth_methods',
  'vault_transit_keys',
  'vault_audit_entries',
  'vault_auth_roles',
  'vault_approle_secret_ids',
] as const;

const REASON = 'vault data of a VaultCluster that no longer exists';

async function clusterIdsWithoutKeyring(scope: GcScope): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const table of VAULT_ROW_TABLES) {
    const rows = await scope.database.kysely
      .selectFrom(table)
      .select('cluster_id')
      .distinct()
      .where('cluster_id', 'not in', (eb) => eb.selectFrom('vault_keyrings').select('cluster_id'))
      .execute();
    for (const row of rows) ids.add(row.cluster_id);
  }
  return ids;
}

export const VAULT_LEFTOVERS: ResourceCollector = {
  shape: 'resources',
  name: 'vault_clusters',
  needs: ['control plane'],
  async list(scope) {
    const view = scope.view!;
    const gone = (clusterId: string) => !view.vaultClusters.has(clusterId);
    // A keyring younger than the grace may belong to a cluster made after the view was read.
    const keyrings = await scope.database.kysely
      .selectFrom('vault_keyrings')
      .select(['cluster_id', 'created_at'])
      .where('created_at', '<', orphanCutoff(scope))
      .orderBy('cluster_id')
      .execute();
    const leftovers: Leftover[] = keyrings
      .filter((keyring) => gone(keyring.cluster_id))
      .map((keyring) => ({
        resource: keyring.cluster_id,
        since: keyring.created_at,
        reason: REASON,
        protected: view.protectedIds.has(keyring.cluster_id),
      }));
    // Rows without a keyring: a cluster is initialized keyring first, so these are leftovers only.
    for (const clusterId of await clusterIdsWithoutKeyring(scope)) {
      if (!gone(clusterId)) continue;
      leftovers.push({
        resource: clusterId,
        since: scope.now.toISOString(),
        reason: `${REASON} (no keyring)`,
        protected: view.protectedIds.has(clusterId),
      });
    }
    return leftovers;
  },
  async remove({ database }, leftover) {
    await database.kysely.transaction().execute(async (trx) => {
      for (const table of VAULT_ROW_TABLES) {
        await trx.deleteFrom(table).where('cluster_id', '=', leftover.resource).execute();
      }
      await trx.deleteFrom('vault_keyrings').where('cluster_id', '=', leftover.resource).execute();
    });
  },
};
