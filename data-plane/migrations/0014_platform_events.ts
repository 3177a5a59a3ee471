import type { Kysely } from 'kysely';

/**
 * The platform event log the event stream serves, and the one-use tickets browsers connect with.
 *
 * `sequence` is given by the publisher under one lock (max + 1), so it grows in commit order on
 * both dialects and a reader that remembers the last number it saw misses nothing. Rows older than
 * the retention (integrations/events/publisher.ts) are pruned as new ones arrive. A ticket is
 * stored only as its SHA-256 hash and is deleted by the upgrade that uses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('platform_events')
    .addColumn('sequence', 'integer', (column) => column.primaryKey())
    .addColumn('organization_id', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('time', 'text', (column) => column.notNull())
    .addColumn('data', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('platform_events_organization_idx')
    .on('platform_events')
    .columns(['organization_id', 'sequence'])
    .execute();
  await db.schema.createIndex('platform_events_time_idx').on('platform_events').column('time').execute();

  await db.schema
    .createTable('event_stream_tickets')
    .addColumn('ticket_hash', 'text', (column) => column.primaryKey())
    .addColumn('organization_id', 'text', (column) => column.notNull())
    .addColumn('principal_kind', 'text', (column) => column.notNull())
    .addColumn('principal_id', 'text', (column) => column.notNull())
    /** JSON array: the stream shows the holder only the events its scopes read. */
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('event_stream_tickets_expiry_idx')
    .on('event_stream_tickets')
    .column('expires_at')
    .execute();
}
