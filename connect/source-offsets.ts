/**
 * The committed offsets of sources whose database keeps no position for them (MySQL's binlog,
 * unlike PostgreSQL's replication slot): one per connector, in the data plane, written only
 * after the brokers acknowledged every record before it, removed with the connector.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import type { SourceOffset } from './change-envelope.js';
import type { ConnectorKey } from './connector-store.js';

export class SourceOffsetStore {
  constructor(private readonly database: DataPlane) {}

  async get(key: ConnectorKey): Promise<SourceOffset | undefined> {
    const row = await this.database.kysely
      .selectFrom('connect_source_offsets')
      .selectAll()
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      partition: JSON.parse(row.source_partition) as SourceOffset['partition'],
      offset: JSON.parse(row.source_offset) as Record<string, unknown>,
    };
  }

  async commit(key: ConnectorKey, offset: SourceOffset<object>, now: Date): Promise<void> {
    const values = {
      source_partition: JSON.stringify(offset.partition),
      source_offset: JSON.stringify(offset.offset),
      updated_at: now.toISOString(),
    };
    await this.database.kysely
      .insertInto('connect_source_offsets')
      .values({ ...key, ...values })
      .onConflict((conflict) => conflict.columns(['cluster', 'name']).doUpdateSet(values))
      .execute();
  }

  async remove(key: ConnectorKey): Promise<void> {
    await this.database.kysely
      .deleteFrom('connect_source_offsets')
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .execute();
  }

  async removeCluster(cluster: string): Promise<void> {
    await this.database.kysely.deleteFrom('connect_source_offsets').where('cluster', '=', cluster).execute();
  }
}
