import { sql, type Kysely } from 'kysely';

/**
 * Organizations as teams: the `viewer` role, invitations by e-mail, the audit trail of
 * membership changes, and the mark of an organization being deleted. The role check cannot be altered in place on SQLite, so the members table is
 * rebuilt under the same name (rows copied through a scratch table), which both dialects accept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('deleting_at', 'text').execute();
  await db.schema.alterTable('organizations').addColumn('deleting_by', 'text').execute();
  await sql`create table organization_members_before_viewer as select * from organization_members`.execute(
    db,
  );
  await db.schema.dropTable('organization_members').execute();
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
      sql`${sql.ref('role')} in ('owner', 'admin', 'member', 'viewer')`,
    )
    .execute();
  await sql`insert into organization_members (organization_id, user_id, role, created_at)
    select organization_id, user_id, role, created_at from organization_members_before_viewer`.execute(db);
  await db.schema.dropTable('organization_members_before_viewer').execute();
  await db.schema
    .createIndex('organization_members_user_idx')
    .on('organization_members')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('organization_id', 'text', (column) =>
      column.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('invited_by', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('organization_invitations_organization_idx')
    .on('organization_invitations')
    .columns(['organization_id', 'email'])
    .execute();

  await db.schema
    .createTable('organization_audit')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('organization_id', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('details', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('organization_audit_organization_idx')
    .on('organization_audit')
    .columns(['organization_id', 'created_at'])
    .execute();
}
