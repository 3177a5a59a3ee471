/**
 * The record every change-capture source produces, as Debezium shapes it: keyed by the row's
 * primary key, valued `{before, after, source, op, ts_ms}`, on the topic
 * `<topic.prefix>.<database or schema>.<table>`. The sources differ only in their `source` block.
 */
import type { ConnectSchema } from './connect-record.js';

export type ColumnValue = string | number | boolean | null;
export type Row = Record<string, ColumnValue>;

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

export interface Change<Source extends SourceInfo> {
  topic: string;
  keyColumns: readonly string[];
  op: ChangeOp;
  before: Row | null;
  after: Row | null;
  source: Source;
  /** The key of a table without a primary key (PostgreSQL's replica identity). */
  fallbackKey?: Row | null;
}

export function changeRecordOf<Source extends SourceInfo>(
  change: Change<Source>,
  now: Date,
): SourceRecord<Source> {
  return {
    topic: change.topic,
    key: keyOf(change.keyColumns, change.after ?? change.before, change.fallbackKey ?? null),
    value: {
      before: change.before,
      after: change.after,
      op: change.op,
      source: change.source,
      ts_ms: now.getTime(),
    },
  };
}
