import type { Kysely } from 'kysely';

/**
 * Where each change-capture source that keeps no position in its database (MySQL's binlog)
 * resumes: the position of the last change the brokers acknowledged, per connector.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connect_source_offsets')
    .addColumn('cluster', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('source_partition', 'text', (column) => column.notNull())
    .addColumn('source_offset', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('connect_source_offsets_pk', ['cluster', 'name'])
    .execute();
}
