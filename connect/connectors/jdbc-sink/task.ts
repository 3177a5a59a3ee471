/**
 * The relational sink (Confluent's JDBC sink keys) into PostgreSQL, MySQL or MariaDB: each batch
 * is written in one transaction, so its offsets are committed only once its rows are.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { dialectOf, type SqlDialect } from './dialects.js';
import {
  createTableSql,
  databaseConnectionOf,
  jdbcSinkSettingsOf,
  rowOf,
  writeSql,
  type DatabaseConnection,
  type JdbcSinkSettings,
  type Row,
} from './statements.js';
import { nextOffsetsOf, type CommittableOffsets, type SinkRecord, type SinkTask } from '../../sink-record.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** What the sink asks of a database session, whichever the database. */
interface SinkSession {
  query(sql: string, values?: unknown[]): Promise<void>;
  tableExists(table: string): Promise<boolean>;
  end(): Promise<void>;
}

async function postgresSession(
  connection: DatabaseConnection,
  onBroken: (error: Error) => void,
): Promise<SinkSession> {
  const client = new pg.Client({ ...connection, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', onBroken);
  await client.connect();
  return {
    async query(sql, values) {
      await client.query(sql, values);
    },
    async tableExists(table) {
      const found = await client.query<{ name: string | null }>('SELECT to_regclass($1)::text AS name', [
        `"${table.replaceAll('"', '""')}"`,
      ]);
      return found.rows[0]?.name !== null;
    },
    end: () => client.end(),
  };
}

async function mysqlSession(
  connection: DatabaseConnection,
  onBroken: (error: Error) => void,
): Promise<SinkSession> {
  const client = await mysql.createConnection({
    ...connection,
    connectTimeout: CONNECT_TIMEOUT_MS,
    charset: 'utf8mb4',
  });
  client.on('error', onBroken);
  return {
    async query(sql, values) {
      // query, not execute: nothing to gain from preparing each row's statement once.
      await client.query(sql, values);
    },
    async tableExists(table) {
      const [rows] = await client.query<mysql.RowDataPacket[]>(
        'SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
        [table],
      );
      return rows.length > 0;
    },
    end: () => client.end(),
  };
}

export class JdbcSinkTask implements SinkTask {
  readonly className = 'io.confluent.connect.jdbc.sink.JdbcSinkTask';
  private session: SinkSession | undefined;
  private readonly settings: JdbcSinkSettings;
  private readonly dialect: SqlDialect;
  /** Tables known to exist, so each is looked for once. */
  private readonly tables = new Set<string>();

  constructor(
    private readonly config: Record<string, string>,
    /** Called when the connection breaks between batches. */
    private readonly onBroken: (error: Error) => void,
  ) {
    this.settings = jdbcSinkSettingsOf(config);
    const dialect = dialectOf(config['connection.url']);
    if (!dialect) throw new Error(`unsupported connection.url ${config['connection.url']}`);
    this.dialect = dialect;
  }

  async start(): Promise<void> {
    const connection = databaseConnectionOf(this.config);
    this.session =
      this.dialect.name === 'mysql'
        ? await mysqlSession(connection, this.onBroken)
        : await postgresSession(connection, this.onBroken);
  }

  async put(records: SinkRecord[]): Promise<CommittableOffsets> {
    const session = this.session!;
    const rows = records
      .map((record) => rowOf(record, this.settings, this.dialect))
      .filter((row) => row !== undefined);
    // Tables first: MySQL commits the open transaction before any DDL.
    for (const row of rows) await this.ensureTable(session, row);
    await session.query('BEGIN');
    try {
      for (const row of rows) {
        await session.query(writeSql(row, this.settings.insertMode, this.dialect), row.values);
      }
      await session.query('COMMIT');
    } catch (error) {
      await session.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return nextOffsetsOf(records);
  }

  private async ensureTable(session: SinkSession, row: Row): Promise<void> {
    if (this.tables.has(row.table)) return;
    if (!(await session.tableExists(row.table))) {
      if (!this.settings.autoCreate) {
        throw new Error(`Table "${row.table}" is missing and auto-creation is disabled`);
      }
      await session.query(createTableSql(row, this.dialect));
    }
    this.tables.add(row.table);
  }

  async stop(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.end().catch(() => undefined);
  }
}
