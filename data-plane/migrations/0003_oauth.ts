import type { Kysely } from 'kysely';

/**
 * OAuth login: the pending logins between the redirect to a provider and its callback, and the
 * provider accounts linked to our users.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_login_states')
    .addColumn('state_hash', 'text', (column) => column.primaryKey())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('client_state', 'text', (column) => column.notNull())
    .addColumn('redirect_uri', 'text', (column) => column.notNull())
    .addColumn('sealed_code_verifier', 'text', (column) => column.notNull())
    .addColumn('nonce', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_login_states_expires_at_idx')
    .on('oauth_login_states')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('oauth_identities')
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('oauth_identities_pk', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('oauth_identities_user_idx').on('oauth_identities').column('user_id').execute();
}
