import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('vpc_cidr_claims')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('resource_id', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('scope', 'text', (column) => column.notNull())
    .addColumn('resource_name', 'text', (column) => column.notNull())
    .addColumn('cidr_block', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vpc_cidr_claims_pkey', ['namespace', 'resource_id'])
    .addCheckConstraint('vpc_cidr_claims_kind_check', sql`${sql.ref('kind')} in ('Vpc', 'Subnet')`)
    .execute();
  await db.schema
    .createIndex('vpc_cidr_claims_scope_idx')
    .on('vpc_cidr_claims')
    .columns(['namespace', 'scope'])
    .execute();

  await db.schema
    .createTable('vpc_tombstones')
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('vpc_id', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('cidr_block', 'text', (column) => column.notNull())
    .addColumn('region', 'text', (column) => column.notNull())
    .addColumn('is_default', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('flow_logs_enabled', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('deleted_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('vpc_tombstones_pkey', ['namespace', 'vpc_id'])
    .execute();
  await db.schema
    .createIndex('vpc_tombstones_deleted_at_idx')
    .on('vpc_tombstones')
    .column('deleted_at')
    .execute();

  await db.schema
    .createTable('vpc_public_ips')
    .addColumn('address', 'text', (column) => column.primaryKey())
    .addColumn('allocation_id', 'text', (column) => column.notNull().unique())
    .addColumn('namespace', 'text', (column) => column.notNull())
    .addColumn('nat_gateway_id', 'text', (column) => column.notNull())
    .addColumn('allocated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('vpc_public_ips_holder_key', ['namespace', 'nat_gateway_id'])
    .execute();
}
