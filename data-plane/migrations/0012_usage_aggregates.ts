import type { Kysely } from 'kysely';

/**
 * Hourly usage, summed from `usage_samples` by the usage aggregation job: one row per
 * (organization, meter, resource, hour), upserted, so re-running an hour gives the same rows.
 * `usage_aggregation_state` keeps the job's watermark: the `recorded_at` of the latest sample it
 * has counted, so samples that arrive late re-aggregate the hours they belong to. A sample may
 * carry its resource's `plan` (a streaming cluster's tier), which its price depends on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_samples').addColumn('plan', 'text').execute();
  await db.schema
    .createTable('usage_hourly')
    .addColumn('organization', 'text', (column) => column.notNull())
    .addColumn('meter', 'text', (column) => column.notNull())
    .addColumn('resource_id', 'text', (column) => column.notNull())
    .addColumn('hour', 'text', (column) => column.notNull())
    .addColumn('resource_type', 'text', (column) => column.notNull())
    .addColumn('resource_name', 'text', (column) => column.notNull())
    .addColumn('unit', 'text', (column) => column.notNull())
    .addColumn('plan', 'text')
    .addColumn('quantity', 'double precision', (column) => column.notNull())
    .addColumn('samples', 'integer', (column) => column.notNull())
    /** True for the running hour, which the next run replaces. */
    .addColumn('provisional', 'integer', (column) => column.notNull())
    .addColumn('aggregated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('usage_hourly_pk', ['organization', 'meter', 'resource_id', 'hour'])
    .execute();
  await db.schema
    .createIndex('usage_hourly_by_organization_hour')
    .on('usage_hourly')
    .columns(['organization', 'hour'])
    .execute();
  await db.schema
    .createTable('usage_aggregation_state')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('watermark', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
}
