import type { Kysely } from 'kysely';

/**
 * The vault data plane. Every value a secret, a transit key or a custom metadata map holds is
 * stored as a sealed box under the cluster's barrier key; the barrier key is stored sealed under
 * the root key, which is never stored in the clear. Tokens are kept only as SHA-256 digests.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('vault_keyrings')
    .addColumn('cluster_id', 'text', (column) => column.primaryKey())
    .addColumn('secret_shares', 'integer', (column) => column.notNull())
    .addColumn('secret_threshold', 'integer', (column) => column.notNull())
    .addColumn('auto_unseal', 'integer', (column) => column.notNull())
    .addColumn('sealed_barrier_key', 'text', (column) => column.notNull())
    .addColumn('sealed_root_key', 'text')
    .addColumn('unsealed_root_key', 'text')
    .addColumn('sealed_audit_salt', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('vault_secret_metadata')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('current_version', 'integer', (column) => column.notNull())
    .addColumn('sealed_custom_metadata', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vault_secret_metadata_pk', ['cluster_id', 'path'])
    .execute();

  await db.schema
    .createTable('vault_secret_versions')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('sealed_data', 'text')
    .addColumn('size_bytes', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('deletion_time', 'text')
    .addColumn('destroyed', 'integer', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('vault_secret_versions_pk', ['cluster_id', 'path', 'version'])
    .execute();

  await db.schema
    .createTable('vault_policies')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull())
    .addColumn('rules', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vault_policies_pk', ['cluster_id', 'name'])
    .execute();

  await db.schema
    .createTable('vault_tokens')
    .addColumn('accessor', 'text', (column) => column.primaryKey())
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('display_name', 'text', (column) => column.notNull())
    .addColumn('policies', 'text', (column) => column.notNull())
    .addColumn('meta', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('ttl', 'integer', (column) => column.notNull())
    .addColumn('issue_time', 'text', (column) => column.notNull())
    .addColumn('expire_time', 'text', (column) => column.notNull())
    .addColumn('max_expire_time', 'text', (column) => column.notNull())
    .addColumn('last_renewal_time', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('vault_tokens_cluster_idx')
    .on('vault_tokens')
    .columns(['cluster_id', 'issue_time'])
    .execute();

  await db.schema
    .createTable('vault_auth_methods')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull())
    .addColumn('config', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vault_auth_methods_pk', ['cluster_id', 'path'])
    .execute();

  await db.schema
    .createTable('vault_transit_keys')
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('latest_version', 'integer', (column) => column.notNull())
    .addColumn('sealed_versions', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('rotated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vault_transit_keys_pk', ['cluster_id', 'name'])
    .execute();

  await db.schema
    .createTable('vault_audit_entries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('cluster_id', 'text', (column) => column.notNull())
    .addColumn('timestamp', 'text', (column) => column.notNull())
    .addColumn('entry', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('vault_audit_entries_cluster_time_idx')
    .on('vault_audit_entries')
    .columns(['cluster_id', 'timestamp', 'id'])
    .execute();
}
