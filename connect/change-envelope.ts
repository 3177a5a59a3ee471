/**
 * The record every change-capture source produces, as Debezium shapes it: keyed by the row's
 * primary key, valued `{before, after, source, op, ts_ms}`, on the topic
 * `<topic.prefix>.<database or schema>.<table>`. The sources differ only in their `source` block.
 */
import type { ConnectSchema } from './connect-record.js';

/** The Debezium release whose records and configuration keys the change-capture sources follow. */
export const DEBEZIUM_VERSION = '2.7.3.Final';

export type ColumnValue = string | number | boolean | null;
export type Row = Record<string, ColumnValue>;

/** A source's offset as Debezium keeps it: per logical server, where the source resumes. */
export interface SourceOffset<Offset extends object = Record<string, unknown>> {
  partition: { server: string };
  offset: Offset;
}

/** Debezium's operations: create, update, delete, and read (a row of the initial snapshot). */
export type ChangeOp = 'c' | 'u' | 'd' | 'r';

/** The fields every Debezium `source` block has; each connector adds its own position fields. */
export interface SourceInfo {
  version: string;
  connector: string;
  /** The logical server: the topic prefix. */
  name: string;
  db: string;
  table: string;
  /** When the change was committed in the database; null when unknown. */
  ts_ms: number | null;
}

/** A record as a source produces it: Debezium's key and value, with their schemas when the source knows them. */
export interface SourceRecord<Source extends SourceInfo = SourceInfo> {
  topic: string;
  key: Row | null;
  keySchema?: ConnectSchema;
  valueSchema?: ConnectSchema;
  value: {
    before: Row | null;
    after: Row | null;
    op: ChangeOp;
    source: Source;
    ts_ms: number;
  };
}

/** Where a source produces to: the broker's acknowledgement resolves it. */
export type ProduceRecords = (records: SourceRecord[]) => Promise<void>;

/** The task of a running source, as the worker drives it. */
export interface SourceTask {
  start(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** The topic of a table's changes, as Debezium names it. */
export function topicOf(prefix: string, namespace: string, table: string): string {
  return `${prefix}.${namespace}.${table}`;
}

/**
 * The record key: the primary key columns of the row (after, or before for a delete); `fallback`
 * when the table has no primary key or the row lacks one of its columns.
 */
export function keyOf(columns: readonly string[], row: Row | null, fallback: Row | null): Row | null {
  if (columns.length > 0 && row && columns.every((column) => column in row)) {
    return Object.fromEntries(columns.map((column) => [column, row[column]!]));
  }
  return fallback;
}

/** A column of a captured table, with the Connect schema of its values. */
export interface CapturedColumn {
  name: string;
  schema: ConnectSchema;
}

/**
 * The key and value schemas of a table's change events, as Debezium names them: the key a
 * `<topic>.Key` struct of the primary key columns (none without a primary key), the value a
 * `<topic>.Envelope` of `before` and `after` (each an optional `<topic>.Value` of every column),
 * the connector's `source` struct, `op` and `ts_ms`. Columns outside the key are optional: a
 * delete's `before` holds only the key under the default replica identity.
 */
export function changeSchemasOf(
  topic: string,
  columns: readonly CapturedColumn[],
  keyColumns: readonly string[],
  sourceSchema: ConnectSchema,
): { keySchema?: ConnectSchema; valueSchema: ConnectSchema } {
  const isKey = (name: string) => keyColumns.includes(name);
  const row: ConnectSchema = {
    type: 'struct',
    name: `${topic}.Value`,
    optional: true,
    fields: columns.map((column) => ({
      ...column.schema,
      ...(isKey(column.name) ? { optional: false } : { optional: true }),
      field: column.name,
    })),
  };
  const keyFields = keyColumns.flatMap((name) => {
    const column = columns.find((candidate) => candidate.name === name);
    return column ? [{ ...column.schema, optional: false, field: name }] : [];
  });
  return {
    ...(keyFields.length > 0 && keyFields.length === keyColumns.length
      ? { keySchema: { type: 'struct', name: `${topic}.Key`, fields: keyFields } }
      : {}),
    valueSchema: {
      type: 'struct',
      name: `${topic}.Envelope`,
      fields: [
        { ...row, field: 'before' },
        { ...row, field: 'after' },
        { ...sourceSchema, field: 'source' },
        { type: 'string', field: 'op' },
        { type: 'int64', optional: true, field: 'ts_ms' },
      ],
    },
  };
}

export interface Change<Source extends SourceInfo> {
  topic: string;
  keyColumns: readonly string[];
  op: ChangeOp;
  before: Row | null;
  after: Row | null;
  source: Source;
  /** The key of a table without a primary key (PostgreSQL's replica identity). */
  fallbackKey?: Row | null;
  /** The event's schemas, where the source knows its table's columns. */
  schemas?: { keySchema?: ConnectSchema; valueSchema: ConnectSchema };
}

export function changeRecordOf<Source extends SourceInfo>(
  change: Change<Source>,
  now: Date,
): SourceRecord<Source> {
  const key = keyOf(change.keyColumns, change.after ?? change.before, change.fallbackKey ?? null);
  const schemas = change.schemas;
  return {
    topic: change.topic,
    key,
    // A key schema describes the primary key; a replica identity's key goes without one.
    ...(schemas?.keySchema && key !== null && key !== change.fallbackKey
      ? { keySchema: schemas.keySchema }
      : {}),
    ...(schemas ? { valueSchema: schemas.valueSchema } : {}),
    value: {
      before: change.before,
      after: change.after,
      op: change.op,
      source: change.source,
      ts_ms: now.getTime(),
    },
  };
}
