import type { Kysely } from 'kysely';

/**
 * Managed data services. `quota_claims` holds what each organization's resources count against
 * its quotas, written under the organization's serialised transaction so racing creates cannot
 * overshoot, and released when the resource is gone. `usage_samples` holds hourly usage of real
 * resources; a sample's id is deterministic (meter, resource, hour), so writing it twice counts once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quota_claims')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('quota', 'text', (column) => column.notNull())
    .addColumn('resource_id', 'text', (column) => column.notNull())
    .addColumn('amount', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('quota_claims_pk', ['namespace', 'quota', 'resource_id'])
    .execute();
  await db.schema
    .createIndex('quota_claims_by_resource')
    .on('quota_claims')
    .columns(['namespace', 'resource_id'])
    .execute();
  await db.schema
    .createTable('usage_samples')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('organization', 'text', (column) => column.notNull())
    .addColumn('meter', 'text', (column) => column.notNull())
    .addColumn('unit', 'text', (column) => column.notNull())
    .addColumn('resource_type', 'text', (column) => column.notNull())
    .addColumn('resource_id', 'text', (column) => column.notNull())
    .addColumn('resource_name', 'text', (column) => column.notNull())
    .addColumn('hour', 'text', (column) => column.notNull())
    .addColumn('quantity', 'double precision', (column) => column.notNull())
    .addColumn('recorded_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('usage_samples_by_recorded')
    .on('usage_samples')
    .columns(['recorded_at'])
    .execute();
  await db.schema
    .createIndex('usage_samples_by_organization_hour')
    .on('usage_samples')
    .columns(['organization', 'hour'])
    .execute();
}
