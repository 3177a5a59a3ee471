import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A counter every change that can end or narrow a credential moves forward, in the same
 * transaction as the change: a session revoked or deleted, a user's current organization, a
 * membership added, removed or given another role, an API key deleted or changed. Each replica
 * keeps resolved credentials in memory and reads the counter on every request: a cache built at
 * an older count is dropped, so a revoked token fails on the very next request on every replica.
 * Activity stamps (`last_active`, `last_used_at`) do not move it.
 */
const WATCHED: readonly { table: string; events: readonly string[] }[] = [
  { table: 'sessions', events: ['DELETE', 'UPDATE OF revoked_at, expires_at, user_id'] },
  { table: 'users', events: ['DELETE', 'UPDATE OF current_organization_id'] },
  { table: 'organization_members', events: ['INSERT', 'DELETE', 'UPDATE OF role, user_id, organization_id'] },
  {
    table: 'api_keys',
    events: ['DELETE', 'UPDATE OF prefix, secret_hash, scopes, expires_at, user_id, organization_id'],
  },
];

const triggerName = (table: string, event: string) =>
  `${table}_${event.split(' ')[0]!.toLowerCase()}_moves_credential_epoch`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credential_epoch')
    .addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('epoch', 'bigint', (column) => column.notNull())
    .execute();
  await sql`insert into credential_epoch (id, epoch) values (1, 0)`.execute(db);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`
      create function move_credential_epoch() returns trigger language plpgsql as $$
      begin
        update credential_epoch set epoch = epoch + 1 where id = 1;
        return null;
      end $$`.execute(db);
  }
  for (const { table, events } of WATCHED) {
    for (const event of events)
      await createEpochTrigger(db, triggerName(table, event), `after ${event} on ${table}`);
  }
}

/** A trigger named `name` that moves the credential epoch `on` (`after <event> on <table>`). */
export async function createEpochTrigger(db: Kysely<unknown>, name: string, on: string): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const trigger = sql.raw(name);
  const when = sql.raw(on);
  await (
    postgres
      ? sql`create trigger ${trigger} ${when} for each statement execute function move_credential_epoch()`
      : sql`create trigger ${trigger} ${when} for each row begin
        update credential_epoch set epoch = epoch + 1 where id = 1;
      end`
  ).execute(db);
}
