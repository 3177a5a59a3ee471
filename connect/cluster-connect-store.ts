/**
 * Connectors run by Connect workers outside the process (cluster mode): what the workers last
 * reported, kept in the data plane so that every API replica answers alike, and the restarts the
 * API was asked for, which the worker of the leading operator passes on.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import type { ConnectorObservation, ConnectorRestart } from '../workloads/runtime.js';
import type { ConnectorKey } from './connector-store.js';

export type RestartRequest = ({ kind: 'connector' } & ConnectorRestart) | { kind: 'task'; task: number };

const TABLE = 'connect_connector_observations';

export class ConnectorObservationStore {
  constructor(private readonly database: DataPlane) {}

  private async upsert(
    key: ConnectorKey,
    values: { observed?: string; observed_at?: string; restart_request?: string | null },
  ): Promise<void> {
    await this.database.kysely
      .insertInto(TABLE)
      .values({
        cluster: key.cluster,
        name: key.name,
        observed: values.observed ?? null,
        observed_at: values.observed_at ?? null,
        restart_request: values.restart_request ?? null,
      })
      .onConflict((conflict) => conflict.columns(['cluster', 'name']).doUpdateSet(values))
      .execute();
  }

  /** What the workers last reported; undefined before their first report. */
  async observed(key: ConnectorKey): Promise<ConnectorObservation | undefined> {
    const row = await this.database.kysely
      .selectFrom(TABLE)
      .select('observed')
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    return row?.observed ? (JSON.parse(row.observed) as ConnectorObservation) : undefined;
  }

  async record(key: ConnectorKey, observed: ConnectorObservation, at: Date): Promise<void> {
    await this.upsert(key, { observed: JSON.stringify(observed), observed_at: at.toISOString() });
  }

  /** Asks for a restart; a later request replaces one not yet passed on. */
  async requestRestart(key: ConnectorKey, request: RestartRequest): Promise<void> {
    await this.upsert(key, { restart_request: JSON.stringify(request) });
  }

  /** The restart asked for, now forgotten: the caller passes it on. */
  async takeRestart(key: ConnectorKey): Promise<RestartRequest | undefined> {
    const row = await this.database.kysely
      .selectFrom(TABLE)
      .select('restart_request')
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .executeTakeFirst();
    if (!row?.restart_request) return undefined;
    // Cleared only if unchanged: a request made meanwhile waits for the next pass.
    const cleared = await this.database.kysely
      .updateTable(TABLE)
      .set({ restart_request: null })
      .where('cluster', '=', key.cluster)
      .where('name', '=', key.name)
      .where('restart_request', '=', row.restart_request)
      .executeTakeFirst();
    return Number(cleared.numUpdatedRows) > 0
      ? (JSON.parse(row.restart_request) as RestartRequest)
      : undefined;
  }

  /** Forgets the observations of connectors that are gone from the data plane. */
  async prune(): Promise<void> {
    await this.database.kysely
      .deleteFrom(TABLE)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('connect_connectors')
              .select('connect_connectors.name')
              .whereRef('connect_connectors.cluster', '=', `${TABLE}.cluster`)
              .whereRef('connect_connectors.name', '=', `${TABLE}.name`),
          ),
        ),
      )
      .execute();
  }
}
