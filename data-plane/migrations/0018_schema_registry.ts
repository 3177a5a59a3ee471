import type { Kysely } from 'kysely';

/**
 * The schema registry of every event-streaming cluster. Every row is keyed by the cluster's REST
 * id (`esc_…`), so a cluster's registry goes with one delete per table. Schemas are content with
 * an id global to the cluster; a subject's versions point at them; a subject's or the cluster's
 * compatibility level and mode are one row each (subject `''` is the cluster-wide row).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('schema_registry_schemas')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('id', 'integer', (column) => column.notNull())
    .addColumn('schema_type', 'text', (column) => column.notNull())
    .addColumn('schema', 'text', (column) => column.notNull())
    .addColumn('schema_references', 'text', (column) => column.notNull())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('schema_registry_schemas_pk', ['cluster', 'id'])
    .addUniqueConstraint('schema_registry_schemas_fingerprint_uq', ['cluster', 'fingerprint'])
    .execute();
  await db.schema
    .createTable('schema_registry_versions')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('schema_id', 'integer', (column) => column.notNull())
    .addColumn('deleted', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('schema_registry_versions_pk', ['cluster', 'subject', 'version'])
    .execute();
  await db.schema
    .createIndex('schema_registry_versions_schema_idx')
    .on('schema_registry_versions')
    .columns(['cluster', 'schema_id'])
    .execute();
  await db.schema
    .createTable('schema_registry_settings')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('compatibility', 'text')
    .addColumn('mode', 'text')
    .addPrimaryKeyConstraint('schema_registry_settings_pk', ['cluster', 'subject'])
    .execute();
}
