import type { Kysely } from 'kysely';

/**
 * Meter events of the daily meter sync, one row per event. A row is written before it is sent and
 * marked sent once the provider took it, so an event the provider refused is sent again, with the
 * same identifier and value, by the next run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('meter_events')
    .addColumn('identifier', 'text', (column) => column.primaryKey())
    .addColumn('organization', 'text', (column) => column.notNull())
    .addColumn('meter', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('value', 'double precision', (column) => column.notNull())
    .addColumn('revision', 'integer', (column) => column.notNull())
    .addColumn('sent_at', 'text')
    .addUniqueConstraint('meter_events_revision_unique', ['organization', 'meter', 'day', 'revision'])
    .execute();
}
