/**
 * The MySQL source's decisions, made without a server: which tables it captures (Debezium's
 * include lists are anchored regular expressions), how a binlog value reads as JSON, and how the
 * binlog's events group into committed transactions, each ending at the position a restart may
 * resume from.
 */
import type { ColumnValue, Row } from '../../change-envelope.js';
import type { ConnectSchema, ConnectSchemaType } from '../../connect-record.js';
import { listOf } from '../plugin.js';

/** Where in the binlog: the file and the byte position in it. */
export interface BinlogPosition {
  file: string;
  pos: number;
}

/** The databases a server keeps for itself, never captured unless named. */
export const SYSTEM_DATABASES: ReadonlySet<string> = new Set([
  'mysql',
  'information_schema',
  'performance_schema',
  'sys',
]);

export interface TableFilter {
  databases: RegExp[];
  tables: RegExp[];
}

const anchored = (pattern: string) => new RegExp(`^(?:${pattern})$`);

/** The filter of `database.include.list` and `table.include.list` (validated as regular expressions). */
export function tableFilterOf(config: Record<string, string>): TableFilter {
  return {
    databases: listOf(config['database.include.list']).map(anchored),
    tables: listOf(config['table.include.list']).map(anchored),
  };
}

export function captures(filter: TableFilter, db: string, table: string): boolean {
  const databaseMatches =
    filter.databases.length > 0
      ? filter.databases.some((pattern) => pattern.test(db))
      : filter.tables.length > 0 || !SYSTEM_DATABASES.has(db);
  return (
    databaseMatches &&
    (filter.tables.length === 0 || filter.tables.some((pattern) => pattern.test(`${db}.${table}`)))
  );
}

const MYSQL_INTEGERS: Record<string, [ConnectSchemaType, ConnectSchemaType]> = {
  // Signed, then unsigned: Debezium's widening of an unsigned column.
  tinyint: ['int16', 'int16'],
  smallint: ['int16', 'int32'],
  mediumint: ['int32', 'int32'],
  int: ['int32', 'int64'],
  integer: ['int32', 'int64'],
  bigint: ['int64', 'int64'],
};

/**
 * The Connect schema of a column's values as `jsonValueOf` gives them, from the catalog's
 * `DATA_TYPE` and `COLUMN_TYPE`: integers as Debezium types them, floating point as `float64`,
 * `YEAR` as `int32`, the rest (decimals, times, bits, JSON, text) as `string`.
 */
export function mysqlColumnSchemaOf(dataType: string, columnType: string): ConnectSchema {
  const integer = MYSQL_INTEGERS[dataType.toLowerCase()];
  if (integer) return { type: integer[/\bunsigned\b/i.test(columnType) ? 1 : 0] };
  if (['float', 'double', 'real'].includes(dataType.toLowerCase())) return { type: 'float64' };
  if (dataType.toLowerCase() === 'year') return { type: 'int32' };
  return { type: 'string' };
}

/**
 * A column value as JSON, the same whether it came from the binlog or from a snapshot's SELECT:
 * bytes in base64 (Debezium's default), times in ISO-8601 UTC, integers beyond 2^53 and decimals
 * as their digits, JSON documents as their text.
 */
export function jsonValueOf(value: unknown): ColumnValue {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value, (_key, nested: unknown) =>
    typeof nested === 'bigint' ? nested.toString() : nested,
  );
}

export function jsonRowOf(row: Record<string, unknown>): Row {
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, jsonValueOf(value)]));
}

export interface RowChange {
  db: string;
  table: string;
  op: 'c' | 'u' | 'd';
  before: Row | null;
  after: Row | null;
}

/** A transaction the binlog committed: its captured changes and where the next one starts. */
export interface CommittedTransaction {
  changes: RowChange[];
  /** Where the transaction starts: Debezium's `source.file`/`source.pos`. */
  begin: BinlogPosition;
  /** Just past its commit: where a restart resumes. */
  next: BinlogPosition;
  gtid: string | null;
  /** When the server committed it (ms since the epoch). */
  ts_ms: number;
}

/** What the assembler reads of a binlog event (zongji's events have these). */
export interface BinlogEventLike {
  getEventName(): string;
  timestamp: number;
  nextPosition: number;
  size: number;
  binlogName?: string;
  position?: number;
  gtid?: string;
  query?: string;
  tableId?: number;
  tableMap?: Record<number, { parentSchema: string; tableName: string }>;
  rows?: unknown[];
}

const ROW_EVENTS: Record<string, RowChange['op']> = { writerows: 'c', updaterows: 'u', deleterows: 'd' };

/**
 * Groups events into committed transactions. A transaction ends at its XID event, or at a
 * statement outside BEGIN…COMMIT (DDL, or the COMMIT of a non-transactional table).
 */
export class BinlogTransactions {
  private file: string;
  private begin: number | undefined;
  private gtid: string | null = null;
  private changes: RowChange[] = [];

  constructor(
    start: BinlogPosition,
    private readonly filter: TableFilter,
  ) {
    this.file = start.file;
  }

  /** The transaction the event ends, if it ends one. */
  feed(event: BinlogEventLike): CommittedTransaction | undefined {
    const name = event.getEventName();
    const start = event.nextPosition - event.size;
    if (name === 'rotate') {
      this.file = event.binlogName ?? this.file;
      return undefined;
    }
    if (name === 'gtid' || name === 'mariadbgtid' || name === 'anonymousgtid') {
      this.begin = start;
      this.gtid = event.gtid ?? null;
      return undefined;
    }
    if (name === 'query' && event.query === 'BEGIN') {
      this.begin ??= start;
      return undefined;
    }
    const op = ROW_EVENTS[name];
    if (op) {
      this.begin ??= start;
      const table = event.tableMap?.[event.tableId ?? -1];
      if (table && captures(this.filter, table.parentSchema, table.tableName)) {
        for (const row of event.rows ?? []) this.changes.push(changeOf(op, table, row));
      }
      return undefined;
    }
    if (name !== 'xid' && name !== 'query') return undefined;
    const committed: CommittedTransaction = {
      changes: this.changes,
      begin: { file: this.file, pos: this.begin ?? start },
      next: { file: this.file, pos: event.nextPosition },
      gtid: this.gtid,
      ts_ms: event.timestamp,
    };
    this.begin = undefined;
    this.gtid = null;
    this.changes = [];
    return committed;
  }
}

function changeOf(
  op: RowChange['op'],
  table: { parentSchema: string; tableName: string },
  row: unknown,
): RowChange {
  const data = row as Record<string, unknown>;
  const update = data as { before: Record<string, unknown>; after: Record<string, unknown> };
  return {
    db: table.parentSchema,
    table: table.tableName,
    op,
    before: op === 'c' ? null : jsonRowOf(op === 'u' ? update.before : data),
    after: op === 'd' ? null : jsonRowOf(op === 'u' ? update.after : data),
  };
}
