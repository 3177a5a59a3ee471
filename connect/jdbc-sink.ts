/**
 * The relational sink (Confluent's JDBC sink keys) into PostgreSQL: each batch is written in one
 * transaction, so its offsets are committed only once its rows are.
 */
import pg from 'pg';
import {
  createTableSql,
  jdbcSinkSettingsOf,
  postgresConnectionOf,
  rowOf,
  writeSql,
  type JdbcSinkSettings,
} from './jdbc-statements.js';
import { nextOffsetsOf, type CommittableOffsets, type SinkRecord, type SinkTask } from './sink-record.js';

const CONNECT_TIMEOUT_MS = 10_000;

export class JdbcSinkTask implements SinkTask {
  private client: pg.Client | undefined;
  private readonly settings: JdbcSinkSettings;
  /** Tables known to exist, so each is looked for once. */
  private readonly tables = new Set<string>();

  constructor(
    private readonly config: Record<string, string>,
    /** Called when the connection breaks between batches. */
    private readonly onBroken: (error: Error) => void,
  ) {
    this.settings = jdbcSinkSettingsOf(config);
  }

  async start(): Promise<void> {
    const client = new pg.Client({
      ...postgresConnectionOf(this.config),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    client.on('error', (error) => this.onBroken(error));
    await client.connect();
    this.client = client;
  }

  async put(records: SinkRecord[]): Promise<CommittableOffsets> {
    const client = this.client!;
    const rows = records.map((record) => rowOf(record, this.settings));
    await client.query('BEGIN');
    try {
      for (const row of rows) {
        if (!row) continue;
        await this.ensureTable(client, row);
        await client.query(writeSql(row, this.settings.insertMode), row.values);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return nextOffsetsOf(records);
  }

  private async ensureTable(client: pg.Client, row: NonNullable<ReturnType<typeof rowOf>>): Promise<void> {
    if (this.tables.has(row.table)) return;
    const found = await client.query<{ name: string | null }>('SELECT to_regclass($1)::text AS name', [
      `"${row.table.replaceAll('"', '""')}"`,
    ]);
    if (found.rows[0]?.name === null) {
      if (!this.settings.autoCreate) {
        throw new Error(`Table "${row.table}" is missing and auto-creation is disabled`);
      }
      await client.query(createTableSql(row));
    }
    this.tables.add(row.table);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
