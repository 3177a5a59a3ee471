import type { Kysely } from 'kysely';

/**
 * The request rate limiter's counts when replicas share them (on PostgreSQL): one row per caller
 * with both windows, the per-minute and the per-second one, so that one statement counts a request
 * against both (`apiserver/middleware/rate-limit.ts`). Ends are Unix milliseconds. No index beyond
 * the key: every request rewrites its caller's row, and an indexed column would cost each update
 * an index entry. The table the limiter used to create for itself at start-up (two rows and two
 * statements per request) goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cloudplane_rate_limits').ifExists().execute();
  await db.schema
    .createTable('rate_limit_counts')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('minute_used', 'integer', (column) => column.notNull())
    .addColumn('minute_ends_at', 'bigint', (column) => column.notNull())
    .addColumn('second_used', 'integer', (column) => column.notNull())
    .addColumn('second_ends_at', 'bigint', (column) => column.notNull())
    .execute();
}
