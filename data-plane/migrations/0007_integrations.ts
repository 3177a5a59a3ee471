import type { Kysely } from 'kysely';

/**
 * The integrations data plane. Credentials are one sealed JSON object per integration; the
 * `(namespace, type, account_key)` key makes a second integration of the same provider account
 * in one organization impossible, whatever the timing of two creates. Tests and codehost syncs
 * are records of background runs the API reads back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_credentials')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('integration_id', 'text', (column) => column.notNull().unique())
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('account_key', 'text')
    .addColumn('sealed_credentials', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('integration_credentials_account_unique', ['namespace', 'type', 'account_key'])
    .execute();

  await db.schema
    .createTable('integration_tests')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('integration_id', 'text', (column) => column.notNull())
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('result', 'text')
    .addColumn('errors', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('integration_tests_integration_idx')
    .on('integration_tests')
    .columns(['integration_id', 'started_at'])
    .execute();

  await db.schema
    .createTable('integration_syncs')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('integration_id', 'text', (column) => column.notNull())
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('repositories', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('full_sync', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('errors', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('integration_syncs_integration_idx')
    .on('integration_syncs')
    .columns(['integration_id', 'started_at'])
    .execute();
}
