/**
 * What the relational sink writes, decided without a database: the connection a JDBC URL names,
 * the row a record becomes under `pk.mode`, and the PostgreSQL statements that create the table
 * and insert or upsert the row.
 */
import { listOf } from './connector-plugins.js';
import type { SinkRecord } from './sink-record.js';

export interface JdbcSinkSettings {
  tableNameFormat: string;
  insertMode: 'insert' | 'upsert';
  pkMode: 'none' | 'record_key' | 'record_value';
  pkFields: string[];
  autoCreate: boolean;
}

export function jdbcSinkSettingsOf(config: Record<string, string>): JdbcSinkSettings {
  return {
    tableNameFormat: config['table.name.format'] || '${topic}',
    insertMode: config['insert.mode'] === 'upsert' ? 'upsert' : 'insert',
    pkMode: (config['pk.mode'] as JdbcSinkSettings['pkMode']) || 'none',
    pkFields: listOf(config['pk.fields']),
    autoCreate: config['auto.create'] === 'true',
  };
}

export interface PostgresConnection {
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
}

/** The server a `jdbc:postgresql://host[:port]/database[?user=…&password=…]` URL names; `connection.user` and `connection.password` win. */
export function postgresConnectionOf(config: Record<string, string>): PostgresConnection {
  const url = new URL((config['connection.url'] ?? '').replace(/^jdbc:/, ''));
  if (url.protocol !== 'postgresql:') throw new Error(`unsupported connection.url ${url.protocol}`);
  const user = config['connection.user'] || url.searchParams.get('user') || undefined;
  const password = config['connection.password'] || url.searchParams.get('password') || undefined;
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 5432,
    database: decodeURIComponent(url.pathname.slice(1)),
    ...(user ? { user } : {}),
    ...(password ? { password } : {}),
  };
}

export interface Column {
  name: string;
  sqlType: string;
}

/** One record as a row: its columns in order, the values, and which columns form the key. */
export interface Row {
  table: string;
  columns: Column[];
  values: unknown[];
  keyColumns: string[];
}

const SCHEMA_TYPES: Record<string, string> = {
  int8: 'SMALLINT',
  int16: 'SMALLINT',
  int32: 'INTEGER',
  int64: 'BIGINT',
  float32: 'REAL',
  float64: 'DOUBLE PRECISION',
  boolean: 'BOOLEAN',
  string: 'TEXT',
  bytes: 'BYTEA',
};

function inferredType(value: unknown): string {
  if (typeof value === 'boolean') return 'BOOLEAN';
  if (typeof value === 'number') return Number.isInteger(value) ? 'BIGINT' : 'DOUBLE PRECISION';
  if (typeof value === 'object' && value !== null) return 'JSONB';
  return 'TEXT';
}

function sqlValue(value: unknown, sqlType: string): unknown {
  if (value === null || value === undefined) return null;
  if (sqlType === 'JSONB') return JSON.stringify(value);
  if (sqlType === 'BYTEA' && typeof value === 'string') return Buffer.from(value, 'base64');
  return value;
}

function fieldsOf(data: unknown, what: string, record: SinkRecord): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error(
      `the ${what} of ${record.topic}-${record.partition}@${record.offset} is not a JSON object; the sink writes objects as rows`,
    );
  }
  return data as Record<string, unknown>;
}

/** The row a record becomes; undefined for a tombstone, which this sink skips. */
export function rowOf(record: SinkRecord, settings: JdbcSinkSettings): Row | undefined {
  if (record.value === null) return undefined;
  const value = fieldsOf(record.value, 'value', record);
  const schemaTypes = new Map(
    (record.valueSchema?.fields ?? []).map((field) => [field.field, SCHEMA_TYPES[field.type] ?? 'JSONB']),
  );
  const fields: Record<string, unknown> = {};
  let keyColumns: string[] = [];
  if (settings.pkMode === 'record_key') {
    const key =
      typeof record.key === 'object' && record.key !== null && !Array.isArray(record.key)
        ? (record.key as Record<string, unknown>)
        : { [settings.pkFields[0] ?? '__connect_key']: record.key };
    if (record.key === null || record.key === undefined) {
      throw new Error(
        `pk.mode record_key, but ${record.topic}-${record.partition}@${record.offset} has no key`,
      );
    }
    keyColumns = settings.pkFields.length > 0 ? settings.pkFields : Object.keys(key);
    for (const column of keyColumns) fields[column] = key[column];
  } else if (settings.pkMode === 'record_value') {
    keyColumns = settings.pkFields;
  }
  for (const [name, data] of Object.entries(value)) {
    if (!(name in fields)) fields[name] = data;
  }
  for (const column of keyColumns) {
    if (fields[column] === undefined || fields[column] === null) {
      throw new Error(
        `the primary key field ${column} is missing from ${record.topic}-${record.partition}@${record.offset}`,
      );
    }
  }
  const columns = Object.entries(fields).map(([name, data]) => ({
    name,
    sqlType: schemaTypes.get(name) ?? inferredType(data),
  }));
  return {
    table: settings.tableNameFormat.replaceAll('${topic}', record.topic),
    columns,
    values: columns.map((column) => sqlValue(fields[column.name], column.sqlType)),
    keyColumns,
  };
}

/** `"name"`, with quotes inside doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The table a first row asks for (`auto.create`). */
export function createTableSql(row: Row): string {
  const columns = row.columns.map(
    (column) =>
      `${quoteIdentifier(column.name)} ${column.sqlType}${row.keyColumns.includes(column.name) ? ' NOT NULL' : ''}`,
  );
  const key =
    row.keyColumns.length > 0 ? [`PRIMARY KEY (${row.keyColumns.map(quoteIdentifier).join(', ')})`] : [];
  return `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(row.table)} (${[...columns, ...key].join(', ')})`;
}

/** The insert, or the upsert on the key columns, with `$n` parameters in column order. */
export function writeSql(row: Row, insertMode: JdbcSinkSettings['insertMode']): string {
  const names = row.columns.map((column) => quoteIdentifier(column.name));
  const insert = `INSERT INTO ${quoteIdentifier(row.table)} (${names.join(', ')}) VALUES (${names
    .map((_, index) => `$${index + 1}`)
    .join(', ')})`;
  if (insertMode === 'insert') return insert;
  const updates = row.columns
    .filter((column) => !row.keyColumns.includes(column.name))
    .map((column) => `${quoteIdentifier(column.name)} = EXCLUDED.${quoteIdentifier(column.name)}`);
  const conflict = `ON CONFLICT (${row.keyColumns.map(quoteIdentifier).join(', ')})`;
  return `${insert} ${conflict} ${updates.length > 0 ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING'}`;
}
