import type { Kysely } from 'kysely';

/**
 * What the Connect workers of a cluster run elsewhere (Strimzi in cluster mode) last reported of
 * each connector, so that every API replica answers its status alike; and a restart asked through
 * the API, until the worker has passed it on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connect_connector_observations')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('observed', 'text')
    .addColumn('observed_at', 'text')
    .addColumn('restart_request', 'text')
    .addPrimaryKeyConstraint('connect_connector_observations_pk', ['cluster', 'name'])
    .execute();
}
