import type { Kysely } from 'kysely';

/**
 * The credentials of event-streaming users: the SCRAM-SHA-512 credential the brokers check, and
 * the password sealed under the platform key for an audited reveal. Never the password in clear.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('streaming_user_credentials')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('username', 'text', (column) => column.notNull())
    .addColumn('salt', 'text', (column) => column.notNull())
    .addColumn('iterations', 'integer', (column) => column.notNull())
    .addColumn('stored_key', 'text', (column) => column.notNull())
    .addColumn('server_key', 'text', (column) => column.notNull())
    .addColumn('sealed_password', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('streaming_user_credentials_pk', ['namespace', 'cluster', 'username'])
    .execute();
}
