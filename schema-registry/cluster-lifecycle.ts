/** What the rest of the platform asks of a cluster's registry as a whole: its removal and its size. */
import type { DataPlane } from '../data-plane/data-plane.js';

/**
 * Removes every schema, version and setting of a cluster's registry. The cluster controller calls
 * it when the cluster is deleted; `cluster` is the cluster's REST id (`esc_…`).
 */
export async function removeClusterSchemaRegistry(database: DataPlane, cluster: string): Promise<void> {
  await database.kysely.transaction().execute(async (trx) => {
    await trx.deleteFrom('schema_registry_versions').where('cluster', '=', cluster).execute();
    await trx.deleteFrom('schema_registry_schemas').where('cluster', '=', cluster).execute();
    await trx.deleteFrom('schema_registry_settings').where('cluster', '=', cluster).execute();
  });
}

/**
 * The schemas a cluster's registry serves, for usage: distinct schema ids that a live (not
 * soft-deleted) version holds.
 */
export async function countClusterSchemas(database: DataPlane, cluster: string): Promise<number> {
  const row = await database.kysely
    .selectFrom('schema_registry_versions')
    .select((eb) => eb.fn.count<number | string>('schema_id').distinct().as('schemas'))
    .where('cluster', '=', cluster)
    .where('deleted', '=', 0)
    .executeTakeFirst();
  return Number(row?.schemas ?? 0);
}
