/**
 * Connectors as the data plane keeps them: the configuration in clear but for its secrets, which
 * are sealed under a key derived from the platform key and bound to the connector's row.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import { isUniqueViolation } from '../data-plane/unique-violation.js';
import { deriveKey } from '../security/key-derivation.js';
import { open, seal } from '../security/sealed-box.js';
import { connectorExists, connectorNotFound } from './connect-error.js';
import { isSecretKey, pluginOf } from './connector-plugins.js';
import type { TargetState } from './task-state.js';

const KEY_PURPOSE = 'cloudplane connector secrets';

/** Which connector: the cluster's REST id and the connector's name. */
export interface ConnectorKey {
  cluster: string;
  name: string;
}

export interface StoredConnector extends ConnectorKey {
  namespace: string;
  /** The whole configuration, secrets in clear: for the worker only. */
  config: Record<string, string>;
  targetState: TargetState;
  generation: number;
}

function associatedData(key: ConnectorKey): string {
  return `connector:${key.cluster}/${key.name}`;
}

export class ConnectorStore {
  private readonly key: Buffer;

  constructor(
    private readonly database: DataPlane,
    platformKey: Buffer,
  ) {
    this.key = deriveKey(platformKey, KEY_PURPOSE);
  }

  private split(key: ConnectorKey, config: Record<string, string>) {
    const plugin = pluginOf(config['connector.class']);
    const clear: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    for (const [name, value] of Object.entries(config)) {
      (isSecretKey(plugin, name) ? secrets : clear)[name] = value;
    }
    return {
      config: JSON.stringify(clear),
      sealed_secrets: seal(this.key, JSON.stringify(secrets), associatedData(key)),
    };
  }

  private toConnector(row: {
    cluster: string;
    name: string;
    namespace: string;
    config: string;
    sealed_secrets: string;
    target_state: string;
    generation: number;
  }): StoredConnector {
    const secrets = JSON.parse(
      open(this.key, row.sealed_secrets, associatedData(row)).toString('utf8'),
    ) as Record<string, string>;
    return {
      cluster: row.cluster,
      name: row.name,
      namespace: row.namespace,
      config: { ...(JSON.parse(row.config) as Record<string, string>), ...secrets },
      targetState: row.target_state as TargetState,
      generation: Number(row.generation),
    };
  }

  /** Throws 409 when the cluster has a connector of that name. */
  async create(
    key: ConnectorKey,
    namespace: string,
    config: Record<string, string>,
    now: Date,
  ): Promise<void> {
    try {
      await this.database.kysely
        .insertInto('connect_connectors')
        .values({
          ...key,
          namespace,
          ...this.split(key, config),
          target_state: 'RUNNING',
          generation: 1,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw connectorExists(key.name);
      throw error;
    }
  }

  async updateConfig(key: ConnectorKey, config: Record<string, string>, now: Date): Promise<void> {
    const updated = await this.database.kysely
      .updateTable('connect_connectors')
      .set((eb) => ({
        ...this.split(key, config),
        generation: eb('generation', '+', 1),
        updated_at: now.toISOString(),
      }))
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw connectorNotFound(key.name);
  }

  async setTargetState(key: ConnectorKey, state: TargetState, now: Date): Promise<void> {
    const updated = await this.database.kysely
      .updateTable('connect_connectors')
      .set({ target_state: state, updated_at: now.toISOString() })
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw connectorNotFound(key.name);
  }

  async find(key: ConnectorKey): Promise<StoredConnector | undefined> {
    const row = await this.database.kysely
      .selectFrom('connect_connectors')
      .selectAll()
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    return row ? this.toConnector(row) : undefined;
  }

  async get(key: ConnectorKey): Promise<StoredConnector> {
    const found = await this.find(key);
    if (!found) throw connectorNotFound(key.name);
    return found;
  }

  /** The cluster's connectors, or every cluster's when `cluster` is undefined; sorted by name. */
  async list(cluster?: string): Promise<StoredConnector[]> {
    let query = this.database.kysely.selectFrom('connect_connectors').selectAll();
    if (cluster !== undefined) query = query.where('cluster', '=', cluster);
    const rows = await query.orderBy('cluster').orderBy('name').execute();
    return rows.map((row) => this.toConnector(row));
  }

  async remove(key: ConnectorKey): Promise<boolean> {
    const deleted = await this.database.kysely
      .deleteFrom('connect_connectors')
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  /** Removes every connector of a cluster (the cluster is gone). */
  async removeCluster(cluster: string): Promise<void> {
    await this.database.kysely.deleteFrom('connect_connectors').where('cluster', '=', cluster).execute();
  }
}
