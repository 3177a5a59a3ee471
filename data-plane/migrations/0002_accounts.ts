import { sql, type Kysely } from 'kysely';

/**
 * Accounts and identity: users, organizations and their members, sessions with their refresh
 * tokens, single-use e-mail tokens, two-factor state, API keys, and the login failure counters
 * every replica shares. Secrets appear only hashed or sealed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('email_verified', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('two_factor_enabled', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('totp_secret', 'text')
    .addColumn('totp_last_step', 'integer')
    .addColumn('current_organization_id', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'text', (column) =>
      column.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('organization_members_pk', ['organization_id', 'user_id'])
    .addCheckConstraint(
      'organization_members_role_check',
      sql`${sql.ref('role')} in ('owner', 'admin', 'member')`,
    )
    .execute();
  await db.schema
    .createIndex('organization_members_user_idx')
    .on('organization_members')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device', 'text', (column) => column.notNull())
    .addColumn('ip_address', 'text', (column) => column.notNull())
    .addColumn('location', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_active', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('session_id', 'text', (column) =>
      column.notNull().references('sessions.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('spent_at', 'text')
    .execute();
  await db.schema
    .createIndex('refresh_tokens_session_idx')
    .on('refresh_tokens')
    .column('session_id')
    .execute();

  await db.schema
    .createTable('email_tokens')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .addCheckConstraint(
      'email_tokens_purpose_check',
      sql`${sql.ref('purpose')} in ('verify_email', 'reset_password')`,
    )
    .execute();
  await db.schema
    .createIndex('email_tokens_user_idx')
    .on('email_tokens')
    .columns(['user_id', 'purpose'])
    .execute();

  await db.schema
    .createTable('two_factor_challenges')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('two_factor_challenges_user_idx')
    .on('two_factor_challenges')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('backup_codes')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('backup_codes_pk', ['user_id', 'code_hash'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('prefix', 'text', (column) => column.notNull().unique())
    .addColumn('secret_hash', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (column) =>
      column.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('occurred_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('login_failures_subject_idx')
    .on('login_failures')
    .columns(['subject', 'occurred_at'])
    .execute();

  await db.schema
    .createTable('login_lockouts')
    .addColumn('subject', 'text', (column) => column.primaryKey())
    .addColumn('locked_until', 'text', (column) => column.notNull())
    .execute();
}
