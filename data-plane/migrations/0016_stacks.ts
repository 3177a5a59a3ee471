import type { Kysely } from 'kysely';

/** What stacks applied, entry by entry, and the last run of each bootstrap job. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stack_entries')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('stack', 'text', (column) => column.notNull())
    .addColumn('section', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('config', 'text', (column) => column.notNull())
    .addColumn('attributes', 'text', (column) => column.notNull())
    .addColumn('vault_path', 'text')
    .addColumn('artifact', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('stack_entries_pk', ['namespace', 'stack', 'section', 'name'])
    .execute();
  await db.schema
    .createTable('stack_jobs')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('stack', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('execution', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('exit_code', 'integer')
    .addColumn('message', 'text')
    .addColumn('logs', 'text', (column) => column.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addPrimaryKeyConstraint('stack_jobs_pk', ['namespace', 'stack', 'name'])
    .execute();
}
