import type { Kysely } from 'kysely';

/**
 * The connectors of every event-streaming cluster's connector runtime, keyed by the cluster's
 * REST id (`esc_…`) and the connector's name. The configuration is kept in clear but for its
 * secrets, which are sealed under a key derived from the platform key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connect_connectors')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('config', 'text', (column) => column.notNull())
    .addColumn('sealed_secrets', 'text', (column) => column.notNull())
    .addColumn('target_state', 'text', (column) => column.notNull())
    .addColumn('generation', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('connect_connectors_pk', ['cluster', 'name'])
    .execute();
}
