/**
 * The PostgreSQL change-capture source (Debezium's keys and record shape) over logical decoding
 * with `test_decoding`: it peeks at its replication slot, produces each committed transaction's
 * changes, and advances the slot only once the brokers acknowledged them, so the slot's confirmed
 * LSN is the source offset and a restart resends nothing acknowledged (at-least-once).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  changeRecordOf,
  topicOf,
  type ColumnValue,
  type ProduceRecords,
  type Row,
  type SourceInfo,
  type SourceRecord,
  type SourceTask,
} from './change-envelope.js';
import { listOf, POSTGRES_SOURCE } from './connector-plugins.js';

const CONNECT_TIMEOUT_MS = 10_000;
const POLL_MS = 300;

export type DecodedLine =
  | { kind: 'begin'; xid: number }
  | { kind: 'commit'; xid: number; ts_ms: number | null }
  | { kind: 'insert'; schema: string; table: string; after: Row }
  | { kind: 'update'; schema: string; table: string; oldKey: Row | null; after: Row }
  | { kind: 'delete'; schema: string; table: string; oldKey: Row | null };

const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint', 'oid']);
const FLOAT_TYPES = new Set(['real', 'double precision']);

function valueOf(type: string, raw: string): ColumnValue {
  if (raw === 'null') return null;
  if (raw.startsWith("'")) return raw.slice(1, -1).replaceAll("''", "'");
  if (type === 'boolean') return raw === 'true';
  if (INTEGER_TYPES.has(type) || FLOAT_TYPES.has(type)) {
    const number = Number(raw);
    return Number.isSafeInteger(number) || FLOAT_TYPES.has(type) ? number : raw;
  }
  return raw;
}

/** Reads `name[type]:value …` up to the end or to `stop` (test_decoding's `new-tuple:`). */
function tupleOf(text: string, start: number): { row: Row; end: number } {
  const row: Row = {};
  let at = start;
  while (at < text.length) {
    while (text[at] === ' ') at += 1;
    if (at >= text.length || text.startsWith('new-tuple:', at)) break;
    let name: string;
    if (text[at] === '"') {
      let end = at + 1;
      while (!(text[end] === '"' && text[end + 1] !== '"')) end += text[end] === '"' ? 2 : 1;
      name = text.slice(at + 1, end).replaceAll('""', '"');
      at = end + 1;
    } else {
      const open = text.indexOf('[', at);
      name = text.slice(at, open);
      at = open;
    }
    // The type may hold brackets itself (`text[]`): it ends at the `]:` before the value.
    const close = text.indexOf(']:', at);
    const type = text.slice(at + 1, close);
    at = close + 2;
    let end = at;
    if (text[at] === "'") {
      end = at + 1;
      while (end < text.length && !(text[end] === "'" && text[end + 1] !== "'")) {
        end += text[end] === "'" ? 2 : 1;
      }
      end += 1;
    } else {
      while (end < text.length && text[end] !== ' ') end += 1;
    }
    row[name] = valueOf(type, text.slice(at, end));
    at = end;
  }
  return { row, end: at };
}

function identifierOf(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replaceAll('""', '"') : text;
}

const CHANGE = /^table ((?:"(?:[^"]|"")+"|[^.]+))\.((?:"(?:[^"]|"")+"|[^:]+)): (INSERT|UPDATE|DELETE): /;

/** One line of `test_decoding` output (with `include-timestamp`), read; undefined for what it cannot read. */
export function parseTestDecodingLine(line: string): DecodedLine | undefined {
  const begin = /^BEGIN (\d+)$/.exec(line);
  if (begin) return { kind: 'begin', xid: Number(begin[1]) };
  const commit = /^COMMIT (\d+)(?: \(at (.+)\))?$/.exec(line);
  if (commit) {
    const at = commit[2] ? Date.parse(commit[2].replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')) : NaN;
    return { kind: 'commit', xid: Number(commit[1]), ts_ms: Number.isNaN(at) ? null : at };
  }
  const change = CHANGE.exec(line);
  if (!change) return undefined;
  const schema = identifierOf(change[1]!);
  const table = identifierOf(change[2]!);
  const rest = line.slice(change[0].length);
  const noData = rest === '(no-tuple-data)';
  if (change[3] === 'INSERT') return { kind: 'insert', schema, table, after: tupleOf(rest, 0).row };
  if (change[3] === 'DELETE') {
    return { kind: 'delete', schema, table, oldKey: noData ? null : tupleOf(rest, 0).row };
  }
  if (rest.startsWith('old-key:')) {
    const old = tupleOf(rest, 'old-key:'.length);
    const after = tupleOf(rest, old.end + 'new-tuple:'.length).row;
    return { kind: 'update', schema, table, oldKey: old.row, after };
  }
  return { kind: 'update', schema, table, oldKey: null, after: tupleOf(rest, 0).row };
}

/** The PostgreSQL part of a record's `source` block: where in the WAL the change is. */
export interface PostgresSourceInfo extends SourceInfo {
  connector: 'postgresql';
  schema: string;
  txId: number;
  lsn: string;
}

export interface PostgresSourceSettings {
  connection: pg.ClientConfig;
  database: string;
  topicPrefix: string;
  slot: string;
  /** `schema.table`; empty: every table. */
  tables: ReadonlySet<string>;
}

/** The default slot of a connector: fixed per cluster and connector, as slot names are spelt. */
export function slotNameOf(connector: { cluster: string; name: string }): string {
  const digest = createHash('sha256').update(`${connector.cluster}/${connector.name}`).digest('hex');
  return `cloudplane_${digest.slice(0, 16)}`;
}

export function postgresSourceSettingsOf(
  connector: { cluster: string; name: string },
  config: Record<string, string>,
): PostgresSourceSettings {
  const database = config['database.dbname'] ?? 'postgres';
  return {
    connection: {
      host: config['database.hostname'],
      port: Number(config['database.port'] ?? '5432'),
      user: config['database.user'],
      password: config['database.password'],
      database,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    },
    database,
    topicPrefix: config['topic.prefix'] ?? '',
    slot: config['slot.name'] || slotNameOf(connector),
    tables: new Set(listOf(config['table.include.list'])),
  };
}

type ChangeLine = Exclude<DecodedLine, { kind: 'begin' } | { kind: 'commit' }>;

export class PostgresSourceTask implements SourceTask {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private paused = false;
  /** Primary key columns by `schema.table`, looked up once each. */
  private readonly keys = new Map<string, string[]>();

  constructor(
    private readonly settings: PostgresSourceSettings,
    private readonly produce: ProduceRecords,
    private readonly onFailed: (error: Error) => void,
    private readonly now: () => Date,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client(this.settings.connection);
    client.on('error', (error) => this.onFailed(error));
    await client.connect();
    this.client = client;
    const found = await client.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [
      this.settings.slot,
    ]);
    if (found.rowCount === 0) {
      await client.query(`SELECT pg_create_logical_replication_slot($1, 'test_decoding')`, [
        this.settings.slot,
      ]);
    }
    this.schedule();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.polling = this.poll()
        .then(() => {
          if (this.client) this.schedule();
        })
        .catch((error: unknown) => {
          if (this.client) this.onFailed(error as Error);
        });
    }, POLL_MS);
  }

  /** Produces the committed changes not yet confirmed, then confirms them. */
  private async poll(): Promise<void> {
    const client = this.client;
    if (!client || this.paused) return;
    const { rows } = await client.query<{ lsn: string; data: string }>(
      `SELECT lsn::text, data FROM pg_logical_slot_peek_changes($1, NULL, NULL,
         'include-timestamp', 'on', 'skip-empty-xacts', 'on')`,
      [this.settings.slot],
    );
    if (rows.length === 0) return;
    const records: SourceRecord[] = [];
    let changes: { line: ChangeLine; lsn: string }[] = [];
    for (const { lsn, data } of rows) {
      const line = parseTestDecodingLine(data);
      if (!line || line.kind === 'begin') continue;
      if (line.kind === 'commit') {
        for (const change of changes) records.push(await this.recordOf(change.line, change.lsn, line));
        changes = [];
      } else if (this.captures(line.schema, line.table)) {
        changes.push({ line, lsn });
      }
    }
    if (records.length > 0) await this.produce(records);
    await client.query('SELECT pg_replication_slot_advance($1, $2::pg_lsn)', [
      this.settings.slot,
      rows[rows.length - 1]!.lsn,
    ]);
  }

  private captures(schema: string, table: string): boolean {
    return this.settings.tables.size === 0 || this.settings.tables.has(`${schema}.${table}`);
  }

  private async primaryKeyOf(schema: string, table: string): Promise<string[]> {
    const id = `${schema}.${table}`;
    const known = this.keys.get(id);
    if (known) return known;
    const { rows } = await this.client!.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indisprimary AND i.indrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass
        ORDER BY array_position(i.indkey, a.attnum)`,
      [schema, table],
    );
    const columns = rows.map((row) => row.name);
    this.keys.set(id, columns);
    return columns;
  }

  private async recordOf(
    line: ChangeLine,
    lsn: string,
    commit: Extract<DecodedLine, { kind: 'commit' }>,
  ): Promise<SourceRecord<PostgresSourceInfo>> {
    return changeRecordOf<PostgresSourceInfo>(
      {
        topic: topicOf(this.settings.topicPrefix, line.schema, line.table),
        keyColumns: await this.primaryKeyOf(line.schema, line.table),
        op: line.kind === 'insert' ? 'c' : line.kind === 'update' ? 'u' : 'd',
        before: line.kind === 'insert' ? null : line.oldKey,
        after: line.kind === 'delete' ? null : line.after,
        fallbackKey: line.kind === 'insert' ? null : line.oldKey,
        source: {
          version: POSTGRES_SOURCE.version,
          connector: 'postgresql',
          name: this.settings.topicPrefix,
          db: this.settings.database,
          schema: line.schema,
          table: line.table,
          txId: commit.xid,
          lsn,
          ts_ms: commit.ts_ms,
        },
      },
      this.now(),
    );
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    clearTimeout(this.timer);
    await this.polling?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}

async function withClient<T>(settings: PostgresSourceSettings, use: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client(settings.connection);
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The slot's confirmed LSN: where the source resumes; null while the slot does not exist. */
export function confirmedLsnOf(settings: PostgresSourceSettings): Promise<string | null> {
  return withClient(settings, async (client) => {
    const { rows } = await client.query<{ lsn: string | null }>(
      'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1',
      [settings.slot],
    );
    return rows[0]?.lsn ?? null;
  });
}

/** Drops the connector's slot, so the server stops keeping WAL for it. */
export function dropSlot(settings: PostgresSourceSettings): Promise<void> {
  return withClient(settings, async (client) => {
    await client.query(
      'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
      [settings.slot],
    );
  });
}
