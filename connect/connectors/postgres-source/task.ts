/**
 * The PostgreSQL change-capture source (Debezium's keys and record shape) over logical decoding
 * with `pgoutput` through a publication (Debezium's way) or `test_decoding`: when it makes its
 * replication slot it produces the rows already there (the snapshot, read in the slot's own
 * exported snapshot so that streaming starts exactly after it), then it peeks at the slot,
 * produces each committed transaction's changes, and advances the slot only once the brokers
 * acknowledged them, so the slot's confirmed LSN is the source offset and a restart resends
 * nothing acknowledged (at-least-once).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { ConnectSchema } from '../../connect-record.js';
import {
  changeRecordOf,
  changeSchemasOf,
  DEBEZIUM_VERSION,
  topicOf,
  type CapturedColumn,
  type ColumnValue,
  type ProduceRecords,
  type Row,
  type SourceInfo,
  type SourceRecord,
  type SourceTask,
} from '../../change-envelope.js';
import { listOf } from '../plugin.js';
import { columnSchemaOf, columnValueOf, decodePgoutput, rowOf, type PgoutputRelation } from './pgoutput.js';

/** Debezium's `io.debezium.connector.postgresql.Source` struct, of the fields this source writes. */
const POSTGRES_SOURCE_SCHEMA: ConnectSchema = {
  type: 'struct',
  name: 'io.debezium.connector.postgresql.Source',
  fields: [
    { field: 'version', type: 'string' },
    { field: 'connector', type: 'string' },
    { field: 'name', type: 'string' },
    { field: 'ts_ms', type: 'int64', optional: true },
    { field: 'snapshot', type: 'string', optional: true },
    { field: 'db', type: 'string' },
    { field: 'schema', type: 'string' },
    { field: 'table', type: 'string' },
    { field: 'txId', type: 'int64', optional: true },
    { field: 'lsn', type: 'string', optional: true },
  ],
};

const CONNECT_TIMEOUT_MS = 10_000;
const POLL_MS = 300;
const SNAPSHOT_BATCH = 500;

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
  /** The transaction; null for a row of the snapshot. */
  txId: number | null;
  lsn: string;
  /** Debezium's marks: `true` for a row of the snapshot, `last` for its last row, `false` for a change. */
  snapshot: 'true' | 'last' | 'false';
}

/** How the source's publication is made when missing (Debezium's `publication.autocreate.mode`). */
export const PUBLICATION_AUTOCREATE_MODES = ['all_tables', 'filtered', 'disabled', 'no_tables'] as const;

/** The logical decoding plugins the PostgreSQL source reads. */
export const POSTGRES_DECODING_PLUGINS = ['pgoutput', 'test_decoding'] as const;

export type DecodingPlugin = (typeof POSTGRES_DECODING_PLUGINS)[number];

export interface PostgresSourceSettings {
  connection: pg.ClientConfig;
  database: string;
  topicPrefix: string;
  slot: string;
  /** The plugin a new slot is made with; undefined when unset, where an existing slot keeps its own (pgoutput for a new one). */
  plugin: DecodingPlugin | undefined;
  publication: string;
  publicationAutocreate: (typeof PUBLICATION_AUTOCREATE_MODES)[number];
  /** Debezium's older names read as the current ones. */
  snapshotMode: 'initial' | 'always' | 'no_data';
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
    plugin: (config['plugin.name'] || undefined) as DecodingPlugin | undefined,
    publication: config['publication.name'] || 'dbz_publication',
    publicationAutocreate: (config['publication.autocreate.mode'] ||
      'all_tables') as PostgresSourceSettings['publicationAutocreate'],
    snapshotMode: snapshotModeOf(config['snapshot.mode']),
    tables: new Set(listOf(config['table.include.list'])),
  };
}

function snapshotModeOf(mode: string | undefined): PostgresSourceSettings['snapshotMode'] {
  if (mode === 'always') return 'always';
  if (mode === 'no_data' || mode === 'never') return 'no_data';
  return 'initial';
}

/** An identifier quoted for SQL. */
function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * The changes of one peek at a `pgoutput` slot as the lines `test_decoding` would have given:
 * Relation messages describe the tables of the changes after them; truncations are skipped, as
 * Debezium skips them by default (`skipped.operations=t`).
 */
export function pgoutputLinesOf(messages: readonly Buffer[]): (DecodedLine | undefined)[] {
  const relations = new Map<number, PgoutputRelation>();
  let xid = 0;
  const relationOf = (id: number) => {
    const relation = relations.get(id);
    if (!relation) throw new Error(`pgoutput: a change to relation ${id} came before its description`);
    return relation;
  };
  return messages.map((data): DecodedLine | undefined => {
    const message = decodePgoutput(data);
    switch (message.kind) {
      case 'relation':
        relations.set(message.relation.id, message.relation);
        return undefined;
      case 'begin':
        xid = message.xid;
        return { kind: 'begin', xid };
      case 'commit':
        return { kind: 'commit', xid, ts_ms: message.ts_ms };
      case 'insert': {
        const relation = relationOf(message.relationId);
        return {
          kind: 'insert',
          schema: relation.schema,
          table: relation.table,
          after: rowOf(relation, message.after),
        };
      }
      case 'update': {
        const relation = relationOf(message.relationId);
        return {
          kind: 'update',
          schema: relation.schema,
          table: relation.table,
          oldKey: message.old ? rowOf(relation, message.old.values, message.old.identity === 'K') : null,
          after: rowOf(relation, message.after),
        };
      }
      case 'delete': {
        const relation = relationOf(message.relationId);
        return {
          kind: 'delete',
          schema: relation.schema,
          table: relation.table,
          oldKey: rowOf(relation, message.old.values, message.old.identity === 'K'),
        };
      }
      default:
        return undefined;
    }
  });
}

type ChangeLine = Exclude<DecodedLine, { kind: 'begin' } | { kind: 'commit' }>;

export class PostgresSourceTask implements SourceTask {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private paused = false;
  /** The plugin the slot decodes with, known once started. */
  private plugin: DecodingPlugin | undefined;
  /** Primary key columns by `schema.table`, looked up once each. */
  private readonly keys = new Map<string, string[]>();
  /** The change events' schemas by `schema.table`, from its columns, looked up once each. */
  private readonly schemas = new Map<string, ReturnType<typeof changeSchemasOf>>();

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
    const { rows } = await client.query<{ plugin: string }>(
      'SELECT plugin FROM pg_replication_slots WHERE slot_name = $1',
      [this.settings.slot],
    );
    const existing = rows[0]?.plugin;
    if (existing !== undefined && this.settings.plugin !== undefined && existing !== this.settings.plugin) {
      throw new Error(
        `the replication slot ${this.settings.slot} decodes with ${existing}, not plugin.name ${this.settings.plugin}: drop the slot or name another slot.name`,
      );
    }
    this.plugin = (existing ?? this.settings.plugin ?? 'pgoutput') as DecodingPlugin;
    // pgoutput reads the publication as of each change: it must exist before the slot's first one.
    if (this.plugin === 'pgoutput') await this.ensurePublication(client);
    if (existing === undefined) await this.createSlot();
    else if (this.settings.snapshotMode === 'always') await this.snapshot(undefined, null);
    this.schedule();
  }

  /** The tables captured, as the snapshot and a filtered publication take them. */
  private async capturedTables(client: pg.Client): Promise<{ schema: string; table: string }[]> {
    const { rows } = await client.query<{ schema: string; table: string }>(
      `SELECT table_schema AS schema, table_name AS table FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
        ORDER BY table_schema, table_name`,
    );
    return rows.filter(({ schema, table }) => this.captures(schema, table));
  }

  /** Makes or reuses the publication as `publication.autocreate.mode` says. */
  private async ensurePublication(client: pg.Client): Promise<void> {
    const { publication, publicationAutocreate: mode } = this.settings;
    const { rows } = await client.query<{ all: boolean }>(
      'SELECT puballtables AS all FROM pg_publication WHERE pubname = $1',
      [publication],
    );
    const exists = rows.length > 0;
    if (mode === 'disabled') {
      if (!exists) {
        throw new Error(
          `the publication ${publication} does not exist and publication.autocreate.mode is disabled: create it (CREATE PUBLICATION ${publication} FOR ...) or set publication.autocreate.mode to all_tables or filtered`,
        );
      }
      return;
    }
    if (mode === 'all_tables' || mode === 'no_tables') {
      if (!exists) {
        await client.query(
          `CREATE PUBLICATION ${quoted(publication)}${mode === 'all_tables' ? ' FOR ALL TABLES' : ''}`,
        );
      }
      return;
    }
    const tables = (await this.capturedTables(client)).map(
      ({ schema, table }) => `${quoted(schema)}.${quoted(table)}`,
    );
    if (tables.length === 0) {
      throw new Error(
        `publication.autocreate.mode filtered: no table of ${this.settings.database} matches table.include.list`,
      );
    }
    // As Debezium, a filtered publication is brought to the tables of the filter each start.
    if (!exists)
      await client.query(`CREATE PUBLICATION ${quoted(publication)} FOR TABLE ${tables.join(', ')}`);
    else if (!rows[0]!.all)
      await client.query(`ALTER PUBLICATION ${quoted(publication)} SET TABLE ${tables.join(', ')}`);
  }

  /**
   * Makes the slot. With a snapshot to take, over a replication connection that exports the slot's
   * snapshot, read before that connection is used again: the rows are exactly those the stream
   * starts after. A snapshot that fails takes the slot with it, so the next start takes it again.
   */
  private async createSlot(): Promise<void> {
    const plugin = this.plugin!;
    if (this.settings.snapshotMode === 'no_data') {
      await this.client!.query('SELECT pg_create_logical_replication_slot($1, $2)', [
        this.settings.slot,
        plugin,
      ]);
      return;
    }
    // `replication=database`: a walsender connection, which pg passes on though its types omit it.
    const walsender: pg.ClientConfig & { replication: string } = {
      ...this.settings.connection,
      replication: 'database',
    };
    const replication = new pg.Client(walsender);
    replication.on('error', () => undefined);
    await replication.connect();
    try {
      const { rows } = await replication.query<{ consistent_point: string; snapshot_name: string }>(
        `CREATE_REPLICATION_SLOT ${quoted(this.settings.slot)} LOGICAL ${plugin} EXPORT_SNAPSHOT`,
      );
      const { consistent_point: lsn, snapshot_name: name } = rows[0]!;
      try {
        await this.snapshot(name, lsn);
      } catch (error) {
        await this.client!.query('SELECT pg_drop_replication_slot($1)', [this.settings.slot]).catch(
          () => undefined,
        );
        throw error;
      }
    } finally {
      await replication.end().catch(() => undefined);
    }
  }

  /**
   * Produces every captured row as read (op r), in batches, in one repeatable-read transaction:
   * the slot's exported snapshot when it was just made, else the server's view of now.
   */
  private async snapshot(exported: string | undefined, at: string | null): Promise<void> {
    const reader = new pg.Client(this.settings.connection);
    reader.on('error', () => undefined);
    await reader.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      if (exported) await reader.query(`SET TRANSACTION SNAPSHOT '${exported.replaceAll("'", "''")}'`);
      const lsn =
        at ?? (await reader.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
      const ts = this.now().getTime();
      let pending: SourceRecord<PostgresSourceInfo>[] = [];
      for (const { schema, table } of await this.capturedTables(reader)) {
        const keyColumns = await this.primaryKeyOf(schema, table);
        const schemas = await this.schemasOf(schema, table);
        await reader.query(
          `DECLARE snapshot_rows NO SCROLL CURSOR FOR SELECT * FROM ${quoted(schema)}.${quoted(table)}`,
        );
        for (;;) {
          // Every column as its text, typed as the stream types it.
          const batch = await reader.query({
            text: `FETCH ${SNAPSHOT_BATCH} FROM snapshot_rows`,
            types: { getTypeParser: () => (text: string) => text },
          });
          if (batch.rows.length === 0) break;
          for (const raw of batch.rows as Record<string, string | null>[]) {
            const row: Row = {};
            for (const field of batch.fields) {
              const text = raw[field.name];
              row[field.name] =
                text === null || text === undefined ? null : columnValueOf(field.dataTypeID, text);
            }
            pending.push(this.snapshotRecordOf(schema, table, keyColumns, schemas, row, lsn, ts));
          }
          // One record is kept back, so that the last of all can say it is.
          if (pending.length > SNAPSHOT_BATCH) {
            await this.produce(pending.slice(0, -1));
            pending = pending.slice(-1);
          }
        }
        await reader.query('CLOSE snapshot_rows');
      }
      const last = pending[pending.length - 1];
      if (last) last.value.source.snapshot = 'last';
      if (pending.length > 0) await this.produce(pending);
      await reader.query('COMMIT');
    } finally {
      await reader.end().catch(() => undefined);
    }
  }

  private snapshotRecordOf(
    schema: string,
    table: string,
    keyColumns: readonly string[],
    schemas: ReturnType<typeof changeSchemasOf>,
    row: Row,
    lsn: string,
    ts: number,
  ): SourceRecord<PostgresSourceInfo> {
    return changeRecordOf<PostgresSourceInfo>(
      {
        topic: topicOf(this.settings.topicPrefix, schema, table),
        keyColumns,
        schemas,
        op: 'r',
        before: null,
        after: row,
        source: {
          version: DEBEZIUM_VERSION,
          connector: 'postgresql',
          name: this.settings.topicPrefix,
          db: this.settings.database,
          schema,
          table,
          txId: null,
          lsn,
          snapshot: 'true',
          ts_ms: ts,
        },
      },
      this.now(),
    );
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

  /** The slot's changes not yet confirmed, each with its LSN, read as lines. */
  private async peek(client: pg.Client): Promise<{ lsn: string; line: DecodedLine | undefined }[]> {
    if (this.plugin === 'pgoutput') {
      const { rows } = await client.query<{ lsn: string; data: Buffer }>(
        `SELECT lsn::text, data FROM pg_logical_slot_peek_binary_changes($1, NULL, NULL,
           'proto_version', '1', 'publication_names', $2)`,
        [this.settings.slot, this.settings.publication],
      );
      const lines = pgoutputLinesOf(rows.map((row) => row.data));
      return rows.map((row, index) => ({ lsn: row.lsn, line: lines[index] }));
    }
    const { rows } = await client.query<{ lsn: string; data: string }>(
      `SELECT lsn::text, data FROM pg_logical_slot_peek_changes($1, NULL, NULL,
         'include-timestamp', 'on', 'skip-empty-xacts', 'on')`,
      [this.settings.slot],
    );
    return rows.map((row) => ({ lsn: row.lsn, line: parseTestDecodingLine(row.data) }));
  }

  /** Produces the committed changes not yet confirmed, then confirms them. */
  private async poll(): Promise<void> {
    const client = this.client;
    if (!client || this.paused) return;
    const rows = await this.peek(client);
    if (rows.length === 0) return;
    const records: SourceRecord[] = [];
    let changes: { line: ChangeLine; lsn: string }[] = [];
    for (const { lsn, line } of rows) {
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

  /** The schemas of a table's change events, from its columns as the catalog has them now. */
  private async schemasOf(schema: string, table: string): Promise<ReturnType<typeof changeSchemasOf>> {
    const id = `${schema}.${table}`;
    const known = this.schemas.get(id);
    if (known) return known;
    const { rows } = await this.client!.query<{ name: string; type: number }>(
      `SELECT attname AS name, atttypid::int AS type FROM pg_attribute
        WHERE attrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND attnum > 0 AND NOT attisdropped
        ORDER BY attnum`,
      [schema, table],
    );
    const columns: CapturedColumn[] = rows.map((row) => ({
      name: row.name,
      schema: columnSchemaOf(row.type),
    }));
    const schemas = changeSchemasOf(
      topicOf(this.settings.topicPrefix, schema, table),
      columns,
      await this.primaryKeyOf(schema, table),
      POSTGRES_SOURCE_SCHEMA,
    );
    this.schemas.set(id, schemas);
    return schemas;
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
        schemas: await this.schemasOf(line.schema, line.table),
        op: line.kind === 'insert' ? 'c' : line.kind === 'update' ? 'u' : 'd',
        before: line.kind === 'insert' ? null : line.oldKey,
        after: line.kind === 'delete' ? null : line.after,
        fallbackKey: line.kind === 'insert' ? null : line.oldKey,
        source: {
          version: DEBEZIUM_VERSION,
          connector: 'postgresql',
          name: this.settings.topicPrefix,
          db: this.settings.database,
          schema: line.schema,
          table: line.table,
          txId: commit.xid,
          lsn,
          snapshot: 'false',
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
