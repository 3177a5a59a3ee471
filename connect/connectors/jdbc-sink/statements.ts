/**
 * What the relational sink writes, decided without a database: the connection a JDBC URL names,
 * the row a record becomes under `pk.mode`, and the statements that create the table and insert
 * or upsert the row, in the dialect of the database (PostgreSQL by default; see dialects.ts).
 */
import { listOf } from '../plugin.js';
import { POSTGRES_DIALECT, type ColumnKind, type SqlDialect } from './dialects.js';
import { logicalNumberOf, type ConnectSchema } from '../../connect-record.js';
import { DataException } from '../../connect-exceptions.js';
import type { SinkRecord } from '../../sink-record.js';

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

export interface DatabaseConnection {
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'postgresql:': 5432, 'mysql:': 3306, 'mariadb:': 3306 };

/**
 * The server a `jdbc:<postgresql|mysql|mariadb>://host[:port]/database[?user=…&password=…]` URL
 * names; `connection.user` and `connection.password` win.
 */
export function databaseConnectionOf(config: Record<string, string>): DatabaseConnection {
  const url = new URL((config['connection.url'] ?? '').replace(/^jdbc:/, ''));
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) throw new Error(`unsupported connection.url ${url.protocol}`);
  const user = config['connection.user'] || url.searchParams.get('user') || undefined;
  const password = config['connection.password'] || url.searchParams.get('password') || undefined;
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : defaultPort,
    database: decodeURIComponent(url.pathname.slice(1)),
    ...(user ? { user } : {}),
    ...(password ? { password } : {}),
  };
}

/** The server of a `jdbc:postgresql://` URL; any other scheme is refused. */
export function postgresConnectionOf(config: Record<string, string>): DatabaseConnection {
  if (!/^jdbc:postgresql:/.test(config['connection.url'] ?? '')) {
    throw new Error(`unsupported connection.url ${config['connection.url']}`);
  }
  return databaseConnectionOf(config);
}

export interface Column {
  name: string;
  /** The column type in the row's dialect. */
  sqlType: string;
}

/** One record as a row: its columns in order, the values, and which columns form the key. */
export interface Row {
  table: string;
  columns: Column[];
  values: unknown[];
  keyColumns: string[];
}

const LOGICAL_KINDS: Record<string, ColumnKind> = {
  'org.apache.kafka.connect.data.Timestamp': 'timestamp',
  'org.apache.kafka.connect.data.Date': 'date',
};

const SCHEMA_KINDS: Record<string, ColumnKind> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float32: 'float32',
  float64: 'float64',
  boolean: 'boolean',
  string: 'string',
  bytes: 'bytes',
};

function inferredKind(value: unknown): ColumnKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (value instanceof Date) return 'timestamp';
  if (typeof value === 'object' && value !== null) return 'json';
  return 'string';
}

/** The column kind of a field's schema: its logical type's, its type's, or JSON for structs, arrays and maps. */
function kindOf(schema: ConnectSchema): ColumnKind {
  return (schema.name ? LOGICAL_KINDS[schema.name] : undefined) ?? SCHEMA_KINDS[schema.type] ?? 'json';
}

/** A UTC date and time as both databases read it: `YYYY-MM-DD HH:MM:SS.mmm`. */
const utcText = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function sqlValue(value: unknown, kind: ColumnKind, schema?: ConnectSchema): unknown {
  if (value === null || value === undefined) return null;
  // A transform's Timestamp, Date or Time (a JS Date): the text of its column, or Connect's number for it.
  if (value instanceof Date) {
    if (kind === 'timestamp') return utcText(value.getTime());
    if (kind === 'date') return value.toISOString().slice(0, 10);
    return logicalNumberOf(schema, value);
  }
  // Timestamp is milliseconds since the epoch, Date days since it; both written in UTC as the JDBC sink's db.timezone default.
  if (kind === 'timestamp' && typeof value === 'number') return utcText(value);
  if (kind === 'date' && typeof value === 'number') return utcText(value * 86_400_000).slice(0, 10);
  if (typeof value === 'bigint') return value.toString();
  if (kind === 'json') return JSON.stringify(value);
  if (kind === 'bytes' && typeof value === 'string') return Buffer.from(value, 'base64');
  return value;
}

function fieldsOf(data: unknown, what: string, record: SinkRecord): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new DataException(
      `the ${what} of ${record.topic}-${record.partition}@${record.offset} is not a JSON object; the sink writes objects as rows`,
    );
  }
  return data as Record<string, unknown>;
}

/** The row a record becomes; undefined for a tombstone, which this sink skips. */
export function rowOf(
  record: SinkRecord,
  settings: JdbcSinkSettings,
  dialect: SqlDialect = POSTGRES_DIALECT,
): Row | undefined {
  if (record.value === null) return undefined;
  const value = fieldsOf(record.value, 'value', record);
  const fieldSchemas = new Map<string, ConnectSchema>(
    [...(record.keySchema?.fields ?? []), ...(record.valueSchema?.fields ?? [])].map((field) => [
      field.field,
      field,
    ]),
  );
  const schemaKinds = new Map([...fieldSchemas].map(([name, schema]) => [name, kindOf(schema)]));
  const fields: Record<string, unknown> = {};
  let keyColumns: string[] = [];
  if (settings.pkMode === 'record_key') {
    const key =
      typeof record.key === 'object' && record.key !== null && !Array.isArray(record.key)
        ? (record.key as Record<string, unknown>)
        : { [settings.pkFields[0] ?? '__connect_key']: record.key };
    if (record.key === null || record.key === undefined) {
      throw new DataException(
        `pk.mode record_key, but ${record.topic}-${record.partition}@${record.offset} has no key`,
      );
    }
    keyColumns = settings.pkFields.length > 0 ? settings.pkFields : Object.keys(key);
    const keySchema = record.keySchema;
    if (keySchema && keySchema.type !== 'struct') schemaKinds.set(keyColumns[0]!, kindOf(keySchema));
    for (const column of keyColumns) fields[column] = key[column];
  } else if (settings.pkMode === 'record_value') {
    keyColumns = settings.pkFields;
  }
  for (const [name, data] of Object.entries(value)) {
    if (!(name in fields)) fields[name] = data;
  }
  for (const column of keyColumns) {
    if (fields[column] === undefined || fields[column] === null) {
      throw new DataException(
        `the primary key field ${column} is missing from ${record.topic}-${record.partition}@${record.offset}`,
      );
    }
  }
  const kinds = Object.entries(fields).map(([name, data]) => ({
    name,
    kind: schemaKinds.get(name) ?? inferredKind(data),
  }));
  return {
    table: settings.tableNameFormat.replaceAll('${topic}', record.topic),
    columns: kinds.map(({ name, kind }) => ({ name, sqlType: dialect.types[kind] })),
    values: kinds.map(({ name, kind }) => sqlValue(fields[name], kind, fieldSchemas.get(name))),
    keyColumns,
  };
}

/** The table a first row asks for (`auto.create`). */
export function createTableSql(row: Row, dialect: SqlDialect = POSTGRES_DIALECT): string {
  const quote = dialect.quote;
  const columns = row.columns.map((column) => {
    const isKey = row.keyColumns.includes(column.name);
    return `${quote(column.name)} ${isKey ? dialect.keyType(column.sqlType) : column.sqlType}${isKey ? ' NOT NULL' : ''}`;
  });
  const key = row.keyColumns.length > 0 ? [`PRIMARY KEY (${row.keyColumns.map(quote).join(', ')})`] : [];
  return `CREATE TABLE IF NOT EXISTS ${quote(row.table)} (${[...columns, ...key].join(', ')})`;
}

/** The insert, or the upsert on the key columns, with the dialect's parameters in column order. */
export function writeSql(
  row: Row,
  insertMode: JdbcSinkSettings['insertMode'],
  dialect: SqlDialect = POSTGRES_DIALECT,
): string {
  const names = row.columns.map((column) => dialect.quote(column.name));
  const insert = `INSERT INTO ${dialect.quote(row.table)} (${names.join(', ')}) VALUES (${names
    .map((_, index) => dialect.parameter(index + 1))
    .join(', ')})`;
  if (insertMode === 'insert') return insert;
  return `${insert} ${dialect.upsertClause(
    row.keyColumns,
    row.columns.map((column) => column.name).filter((name) => !row.keyColumns.includes(name)),
  )}`;
}
