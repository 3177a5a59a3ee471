/**
 * What differs between the databases the relational sink writes: how names are quoted, how
 * parameters are written, the column type of each kind of value, and the upsert. MySQL and
 * MariaDB take the same statements.
 */

/** The kinds of values a column holds: Kafka Connect's schema types, and JSON for the rest. */
export type ColumnKind =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'json'
  // Connect's Timestamp and Date logical types.
  | 'timestamp'
  | 'date';

export interface SqlDialect {
  name: 'postgresql' | 'mysql';
  quote(name: string): string;
  /** The placeholder of the n-th parameter, from 1. */
  parameter(index: number): string;
  types: Record<ColumnKind, string>;
  /** The type a key column needs: MySQL indexes no TEXT or BLOB without a length. */
  keyType(sqlType: string): string;
  /** What follows the insert to update the row whose key is taken. */
  upsertClause(keyColumns: readonly string[], otherColumns: readonly string[]): string;
}

export const POSTGRES_DIALECT: SqlDialect = {
  name: 'postgresql',
  quote: (name) => `"${name.replaceAll('"', '""')}"`,
  parameter: (index) => `$${index}`,
  types: {
    // PostgreSQL has no one-byte integer.
    int8: 'SMALLINT',
    int16: 'SMALLINT',
    int32: 'INTEGER',
    int64: 'BIGINT',
    float32: 'REAL',
    float64: 'DOUBLE PRECISION',
    boolean: 'BOOLEAN',
    string: 'TEXT',
    bytes: 'BYTEA',
    json: 'JSONB',
    timestamp: 'TIMESTAMP',
    date: 'DATE',
  },
  keyType: (sqlType) => sqlType,
  upsertClause(keyColumns, otherColumns) {
    const quote = POSTGRES_DIALECT.quote;
    const conflict = `ON CONFLICT (${keyColumns.map(quote).join(', ')})`;
    if (otherColumns.length === 0) return `${conflict} DO NOTHING`;
    return `${conflict} DO UPDATE SET ${otherColumns
      .map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`)
      .join(', ')}`;
  },
};

const MYSQL_KEY_TYPES: Record<string, string> = { TEXT: 'VARCHAR(255)', BLOB: 'VARBINARY(255)' };

export const MYSQL_DIALECT: SqlDialect = {
  name: 'mysql',
  quote: (name) => `\`${name.replaceAll('`', '``')}\``,
  parameter: () => '?',
  types: {
    int8: 'TINYINT',
    int16: 'SMALLINT',
    int32: 'INT',
    int64: 'BIGINT',
    float32: 'FLOAT',
    float64: 'DOUBLE',
    boolean: 'BOOLEAN',
    string: 'TEXT',
    bytes: 'BLOB',
    json: 'JSON',
    timestamp: 'DATETIME(3)',
    date: 'DATE',
  },
  keyType: (sqlType) => MYSQL_KEY_TYPES[sqlType] ?? sqlType,
  upsertClause(keyColumns, otherColumns) {
    const quote = MYSQL_DIALECT.quote;
    // VALUES() rather than MySQL 8's row alias: MariaDB knows only VALUES().
    const updates =
      otherColumns.length > 0
        ? otherColumns.map((column) => `${quote(column)} = VALUES(${quote(column)})`)
        : [`${quote(keyColumns[0]!)} = ${quote(keyColumns[0]!)}`];
    return `ON DUPLICATE KEY UPDATE ${updates.join(', ')}`;
  },
};

/** The dialect of a `jdbc:` URL; undefined for a database the sink does not write. */
export function dialectOf(url: string | undefined): SqlDialect | undefined {
  const scheme = /^jdbc:([a-z]+):/.exec(url ?? '')?.[1];
  if (scheme === 'postgresql') return POSTGRES_DIALECT;
  if (scheme === 'mysql' || scheme === 'mariadb') return MYSQL_DIALECT;
  return undefined;
}
