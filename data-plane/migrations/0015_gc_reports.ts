import type { Kysely } from 'kysely';

/**
 * What each garbage collection run found and did, for the platform's operators to read before
 * they turn dry-run off. The items are one JSON array: a report is written once and read whole.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('gc_reports')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('finished_at', 'text', (column) => column.notNull())
    .addColumn('dry_run', 'integer', (column) => column.notNull())
    .addColumn('retention_days', 'integer', (column) => column.notNull())
    .addColumn('cutoff', 'text', (column) => column.notNull())
    .addColumn('skipped', 'text', (column) => column.notNull())
    .addColumn('items', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('gc_reports_started_idx').on('gc_reports').column('started_at').execute();
}
