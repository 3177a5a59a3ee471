import type { Kysely } from 'kysely';

/**
 * Roles of the approle and jwt auth methods, and approle secret ids. A role holds no secret (its
 * policies and bindings); secret ids are kept only as SHA-256 digests, like tokens.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('vault_auth_roles')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('mount', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('role_id', 'text')
    .addColumn('config', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vault_auth_roles_pk', ['cluster_id', 'mount', 'name'])
    .execute();
  await db.schema
    .createIndex('vault_auth_roles_role_id_idx')
    .on('vault_auth_roles')
    .columns(['cluster_id', 'mount', 'role_id'])
    .execute();

  await db.schema
    .createTable('vault_approle_secret_ids')
    .addColumn('secret_id_hash', 'text', (column) => column.primaryKey())
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('mount', 'text', (column) => column.notNull())
    .addColumn('role_name', 'text', (column) => column.notNull())
    .addColumn('accessor', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expire_time', 'text')
    .execute();
}
