/**
 * The MySQL and MariaDB change-capture source (Debezium's keys and record shape) over the
 * row-based binary log, read as a replica with zongji. Committed transactions are produced in
 * binlog order; the position just past the last one is committed as the source offset only once
 * the brokers acknowledged its records, and a restart resumes there (at-least-once). Without an
 * offset it starts as `snapshot.mode` says: the existing rows first (`initial`), the binlog from
 * now (`no_data`), or the whole binlog the server still has (`never`).
 */
import { createHash } from 'node:crypto';
import type ZongJi from '@vlasky/zongji';
import type { Connection as CallbackConnection } from 'mysql2';
import type mysql from 'mysql2/promise';
import type { ConnectSchema } from '../../connect-record.js';
import {
  changeRecordOf,
  changeSchemasOf,
  DEBEZIUM_VERSION,
  topicOf,
  type ChangeOp,
  type ProduceRecords,
  type Row,
  type SourceInfo,
  type SourceRecord,
  type SourceTask,
} from '../../change-envelope.js';

/** Debezium's `io.debezium.connector.mysql.Source` struct, of the fields this source writes. */
const MYSQL_SOURCE_SCHEMA: ConnectSchema = {
  type: 'struct',
  name: 'io.debezium.connector.mysql.Source',
  fields: [
    { field: 'version', type: 'string' },
    { field: 'connector', type: 'string' },
    { field: 'name', type: 'string' },
    { field: 'ts_ms', type: 'int64', optional: true },
    { field: 'snapshot', type: 'string', optional: true },
    { field: 'db', type: 'string' },
    { field: 'table', type: 'string', optional: true },
    { field: 'server_id', type: 'int64' },
    { field: 'gtid', type: 'string', optional: true },
    { field: 'file', type: 'string' },
    { field: 'pos', type: 'int64' },
    { field: 'row', type: 'int32' },
  ],
};
import {
  BinlogTransactions,
  captures,
  jsonRowOf,
  mysqlColumnSchemaOf,
  tableFilterOf,
  type BinlogEventLike,
  type BinlogPosition,
  type CommittedTransaction,
  type TableFilter,
} from './binlog.js';

const CONNECT_TIMEOUT_MS = 10_000;
const SNAPSHOT_BATCH = 500;
const BINLOG_EVENTS = [
  'rotate',
  'gtid',
  'anonymousgtid',
  'mariadbgtid',
  'query',
  'tablemap',
  'writerows',
  'updaterows',
  'deleterows',
  'xid',
];

/** The MySQL part of a record's `source` block: where in the binlog the change is. */
export interface MySqlSourceInfo extends SourceInfo {
  connector: 'mysql';
  snapshot: 'true' | 'last' | 'false';
  server_id: number;
  gtid: string | null;
  file: string;
  pos: number;
  row: number;
}

export type SnapshotMode = 'initial' | 'no_data' | 'never';

export interface MySqlSourceSettings {
  connection: { host: string; port: number; user: string; password: string };
  serverId: number;
  topicPrefix: string;
  filter: TableFilter;
  snapshotMode: SnapshotMode;
}

/** Where the source resumes, kept by the worker. */
export interface BinlogOffsets {
  load(): Promise<BinlogPosition | undefined>;
  commit(position: BinlogPosition): Promise<void>;
}

/** The replica id of a connector without `database.server.id`: fixed per cluster and connector. */
export function serverIdOf(connector: { cluster: string; name: string }): number {
  const digest = createHash('sha256').update(`${connector.cluster}/${connector.name}`).digest();
  // Above the small ids administrators give their own servers.
  return 100_000 + (digest.readUInt32BE(0) % 4_000_000_000);
}

export function mySqlSourceSettingsOf(
  connector: { cluster: string; name: string },
  config: Record<string, string>,
): MySqlSourceSettings {
  const id = config['database.server.id'];
  return {
    connection: {
      host: config['database.hostname'] ?? '',
      port: Number(config['database.port'] || '3306'),
      user: config['database.user'] ?? '',
      password: config['database.password'] ?? '',
    },
    serverId: id ? Number(id) : serverIdOf(connector),
    topicPrefix: config['topic.prefix'] ?? '',
    filter: tableFilterOf(config),
    snapshotMode: (config['snapshot.mode'] as SnapshotMode) || 'initial',
  };
}

/** The offset as `GET /connectors/<name>/offsets` answers it, Debezium's names. */
export function binlogOffsetOf(position: BinlogPosition): Record<string, unknown> {
  return { file: position.file, pos: position.pos };
}

export function isBinlogPosition(offset: unknown): offset is BinlogPosition {
  const { file, pos } = (offset ?? {}) as Partial<Record<string, unknown>>;
  return typeof file === 'string' && typeof pos === 'number';
}

export class MySqlSourceTask implements SourceTask {
  private pool: mysql.Pool | undefined;
  private stream: ZongJi | undefined;
  /** Transactions received and not yet acknowledged, in binlog order. */
  private queue: CommittedTransaction[] = [];
  private draining: Promise<void> | undefined;
  /** Just past the last transaction received: where a paused stream starts again. */
  private received: BinlogPosition | undefined;
  private paused = false;
  private stopped = false;
  private failed = false;
  private readonly keys = new Map<string, string[]>();
  /** The change events' schemas by `db.table`, from its columns, looked up once each. */
  private readonly schemas = new Map<string, ReturnType<typeof changeSchemasOf>>();

  constructor(
    private readonly settings: MySqlSourceSettings,
    private readonly offsets: BinlogOffsets,
    private readonly produce: ProduceRecords,
    private readonly onFailed: (error: Error) => void,
    private readonly now: () => Date,
  ) {}

  async start(): Promise<void> {
    // Loaded when a MySQL source first runs: most platforms never run one.
    const { default: mysql } = await import('mysql2/promise');
    this.pool = mysql.createPool({
      ...this.settings.connection,
      connectTimeout: CONNECT_TIMEOUT_MS,
      connectionLimit: 2,
      // Times read as the binlog gives them: UTC, as stored.
      timezone: 'Z',
      supportBigNumbers: true,
      // JSON documents as the text stored, as the binlog gives them.
      jsonStrings: true,
    });
    this.received = (await this.offsets.load()) ?? (await this.startingPosition());
    await this.openStream(this.received);
  }

  pause(): void {
    this.paused = true;
    this.closeStream();
  }

  resume(): void {
    if (!this.paused || this.stopped || this.failed) return;
    this.paused = false;
    this.openStream(this.received!).catch((error: unknown) => this.fail(error));
    this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closeStream();
    await this.draining;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end().catch(() => undefined);
  }

  /**
   * Stops reading for good: a batch the brokers did not take must not be followed by one they
   * take, whose offset would skip it. The worker starts a new task from the committed offset.
   */
  private fail(error: unknown): void {
    if (this.stopped || this.failed) return;
    this.failed = true;
    this.queue = [];
    this.closeStream();
    this.onFailed(error instanceof Error ? error : new Error(String(error)));
  }

  /** Where a source without an offset starts, having produced the snapshot when asked to. */
  private async startingPosition(): Promise<BinlogPosition> {
    const pool = this.pool!;
    let position: BinlogPosition;
    if (this.settings.snapshotMode === 'initial') {
      position = await this.snapshot();
    } else if (this.settings.snapshotMode === 'never') {
      const [logs] = await pool.query<mysql.RowDataPacket[]>('SHOW BINARY LOGS');
      if (logs.length === 0) throw new Error('the server keeps no binary log: start it with --log-bin');
      position = { file: String(logs[0]!.Log_name), pos: 4 };
    } else {
      position = await currentPosition(pool);
    }
    // Committed now, so that a restart before the first change does not start later still.
    await this.offsets.commit(position);
    return position;
  }

  /** Produces every captured row as read (op r) in one consistent view, answering the binlog position of that view. */
  private async snapshot(): Promise<BinlogPosition> {
    const connection = await this.pool!.getConnection();
    try {
      const position = await consistentSnapshot(connection);
      const [tables] = await connection.query<mysql.RowDataPacket[]>(
        `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS name FROM information_schema.TABLES
          WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME`,
      );
      const captured = tables
        .map((row) => ({ db: String(row.db), table: String(row.name) }))
        .filter(({ db, table }) => captures(this.settings.filter, db, table));
      const ts = this.now().getTime();
      const pending: SourceRecord[] = [];
      for (const { db, table } of captured) {
        const keyColumns = await this.primaryKeyOf(db, table);
        const schemas = await this.schemasOf(db, table);
        // The callback connection underneath streams rows, so that a large table is never held whole.
        const rows = (connection.connection as unknown as CallbackConnection)
          .query(`SELECT * FROM ${quote(db)}.${quote(table)}`)
          .stream();
        for await (const row of rows as AsyncIterable<Record<string, unknown>>) {
          if (this.stopped) throw new Error('the source stopped during its snapshot');
          pending.push(
            this.recordOf(db, table, keyColumns, schemas, 'r', null, jsonRowOf(row), {
              snapshot: 'true',
              gtid: null,
              ...position,
              row: 0,
              ts_ms: ts,
            }),
          );
          // One record is kept back, so that the last of all can say it is.
          if (pending.length > SNAPSHOT_BATCH) await this.produce(pending.splice(0, SNAPSHOT_BATCH));
        }
      }
      const last = pending[pending.length - 1];
      if (last) (last.value.source as MySqlSourceInfo).snapshot = 'last';
      if (pending.length > 0) await this.produce(pending);
      await connection.query('COMMIT');
      return position;
    } finally {
      connection.release();
    }
  }

  private async openStream(from: BinlogPosition): Promise<void> {
    const { default: ZongJi } = await import('@vlasky/zongji');
    const stream = new ZongJi({
      ...this.settings.connection,
      connectTimeout: CONNECT_TIMEOUT_MS,
      timezone: 'Z',
    });
    this.stream = stream;
    const transactions = new BinlogTransactions(from, this.settings.filter);
    stream.on('binlog', (event) => {
      if (this.stream !== stream || this.failed) return;
      const committed = transactions.feed(event as unknown as BinlogEventLike);
      if (!committed) return;
      this.received = committed.next;
      this.queue.push(committed);
      this.drain();
    });
    await new Promise<void>((resolve, reject) => {
      stream.once('ready', () => {
        stream.on('error', (error) => {
          if (this.stream === stream) this.fail(error);
        });
        resolve();
      });
      stream.once('error', reject);
      stream.start({
        serverId: this.settings.serverId,
        filename: from.file,
        position: from.pos,
        includeEvents: BINLOG_EVENTS,
      });
    }).catch((error: unknown) => {
      this.closeStream();
      throw error;
    });
  }

  private closeStream(): void {
    const stream = this.stream;
    this.stream = undefined;
    stream?.stop();
  }

  /** Produces the queued transactions in order, committing the offset after each acknowledged batch. */
  private drain(): void {
    if (this.draining || this.paused || this.stopped || this.failed) return;
    this.draining = (async () => {
      while (this.queue.length > 0 && !this.paused && !this.stopped && !this.failed) {
        const batch = this.queue.splice(0);
        const records: SourceRecord[] = [];
        for (const transaction of batch) records.push(...(await this.recordsOf(transaction)));
        if (records.length > 0) await this.produce(records);
        await this.offsets.commit(batch[batch.length - 1]!.next);
      }
    })()
      .catch((error: unknown) => this.fail(error))
      .finally(() => (this.draining = undefined));
  }

  private async recordsOf(transaction: CommittedTransaction): Promise<SourceRecord[]> {
    const records: SourceRecord[] = [];
    for (const [row, change] of transaction.changes.entries()) {
      records.push(
        this.recordOf(
          change.db,
          change.table,
          await this.primaryKeyOf(change.db, change.table),
          await this.schemasOf(change.db, change.table),
          change.op,
          change.before,
          change.after,
          { snapshot: 'false', gtid: transaction.gtid, ...transaction.begin, row, ts_ms: transaction.ts_ms },
        ),
      );
    }
    return records;
  }

  private recordOf(
    db: string,
    table: string,
    keyColumns: readonly string[],
    schemas: ReturnType<typeof changeSchemasOf>,
    op: ChangeOp,
    before: Row | null,
    after: Row | null,
    at: Pick<MySqlSourceInfo, 'snapshot' | 'gtid' | 'file' | 'pos' | 'row' | 'ts_ms'>,
  ): SourceRecord {
    return changeRecordOf<MySqlSourceInfo>(
      {
        topic: topicOf(this.settings.topicPrefix, db, table),
        keyColumns,
        schemas,
        op,
        before,
        after,
        source: {
          version: DEBEZIUM_VERSION,
          connector: 'mysql',
          name: this.settings.topicPrefix,
          ts_ms: at.ts_ms,
          snapshot: at.snapshot,
          db,
          table,
          server_id: this.settings.serverId,
          gtid: at.gtid,
          file: at.file,
          pos: at.pos,
          row: at.row,
        },
      },
      this.now(),
    );
  }

  /** The schemas of a table's change events, from its columns as the catalog has them now. */
  private async schemasOf(db: string, table: string): Promise<ReturnType<typeof changeSchemasOf>> {
    const id = `${db}.${table}`;
    const known = this.schemas.get(id);
    if (known) return known;
    const [rows] = await this.pool!.query<mysql.RowDataPacket[]>(
      `SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [db, table],
    );
    const schemas = changeSchemasOf(
      topicOf(this.settings.topicPrefix, db, table),
      rows.map((row) => ({
        name: String(row.name),
        schema: mysqlColumnSchemaOf(String(row.dataType), String(row.columnType)),
      })),
      await this.primaryKeyOf(db, table),
      MYSQL_SOURCE_SCHEMA,
    );
    this.schemas.set(id, schemas);
    return schemas;
  }

  private async primaryKeyOf(db: string, table: string): Promise<string[]> {
    const id = `${db}.${table}`;
    const known = this.keys.get(id);
    if (known) return known;
    const [rows] = await this.pool!.query<mysql.RowDataPacket[]>(
      `SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
        WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY'
        ORDER BY ORDINAL_POSITION`,
      [db, table],
    );
    const columns = rows.map((row) => String(row.name));
    this.keys.set(id, columns);
    return columns;
  }
}

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;

async function currentPosition(pool: mysql.Pool | mysql.PoolConnection): Promise<BinlogPosition> {
  // MySQL 8.4 knows only SHOW BINARY LOG STATUS; MariaDB and MySQL before 8.2 only SHOW MASTER STATUS.
  const [status] = await pool
    .query<mysql.RowDataPacket[]>('SHOW MASTER STATUS')
    .catch(() => pool.query<mysql.RowDataPacket[]>('SHOW BINARY LOG STATUS'));
  const row = status[0];
  if (!row) throw new Error('the server writes no binary log: start it with --log-bin --binlog-format=ROW');
  return { file: String(row.File), pos: Number(row.Position) };
}

/**
 * Opens a transaction whose reads see the database as of one binlog position, and answers that
 * position: MariaDB tells it for the snapshot itself; MySQL needs writes held while it is read.
 */
async function consistentSnapshot(connection: mysql.PoolConnection): Promise<BinlogPosition> {
  await connection.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  const [version] = await connection.query<mysql.RowDataPacket[]>('SELECT VERSION() AS version');
  if (String(version[0]?.version).includes('MariaDB')) {
    await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    const [status] = await connection.query<mysql.RowDataPacket[]>(`SHOW STATUS LIKE 'binlog_snapshot_%'`);
    const value = (name: string) =>
      status.find((row) => String(row.Variable_name).toLowerCase() === name)?.Value as unknown;
    const file = value('binlog_snapshot_file');
    if (!file)
      throw new Error('the server writes no binary log: start it with --log-bin --binlog-format=ROW');
    return { file: String(file), pos: Number(value('binlog_snapshot_position')) };
  }
  await connection.query('FLUSH TABLES WITH READ LOCK');
  try {
    await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    return await currentPosition(connection);
  } finally {
    await connection.query('UNLOCK TABLES');
  }
}
