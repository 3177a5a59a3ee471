/**
 * Kafka Connect's data model, as converters produce it and transforms and sinks read it: a
 * record with a typed key and value (each with an optional schema in Connect's terms) and its
 * headers. Values follow the schema: a struct is a plain object of its fields, an array an array,
 * a map an object (string keys) or a `Map`, bytes a `Buffer`, int64 a number (or a bigint past
 * 2^53); a schemaless value is whatever JSON gives.
 */

/** Connect's schema types (`org.apache.kafka.connect.data.Schema.Type`), lower case as JsonConverter writes them. */
export type ConnectSchemaType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

/** A schema as JsonConverter's envelope spells it (`{"type":"struct","fields":[…],"optional":false}`). */
export interface ConnectSchema {
  type: ConnectSchemaType;
  optional?: boolean;
  /** A logical type (`org.apache.kafka.connect.data.Timestamp`, `…Decimal`, `…Date`, `…Time`) or a record name. */
  name?: string;
  version?: number;
  doc?: string;
  default?: unknown;
  parameters?: Record<string, string>;
  /** A struct's fields, in order. */
  fields?: ConnectField[];
  /** An array's element schema. */
  items?: ConnectSchema;
  /** A map's key and value schemas. */
  keys?: ConnectSchema;
  values?: ConnectSchema;
}

/** A struct field: its schema with its name, as JsonConverter inlines it. */
export interface ConnectField extends ConnectSchema {
  field: string;
}

export interface ConnectHeader {
  key: string;
  value: unknown;
  schema?: ConnectSchema;
}

/** One record between a converter and a sink (or a source and a converter). */
export interface ConnectRecord {
  topic: string;
  /** Null where the producer's partitioner decides (a source record). */
  partition: number | null;
  /** Milliseconds since the epoch; null where the record has none. */
  timestamp: number | null;
  key: unknown;
  keySchema?: ConnectSchema;
  value: unknown;
  valueSchema?: ConnectSchema;
  headers: ConnectHeader[];
}

/** Connect's logical types of time (`org.apache.kafka.connect.data.*`), a JS `Date` in memory. */
export const TIMESTAMP_LOGICAL = 'org.apache.kafka.connect.data.Timestamp';
export const DATE_LOGICAL = 'org.apache.kafka.connect.data.Date';
export const TIME_LOGICAL = 'org.apache.kafka.connect.data.Time';

const DAY_MS = 86_400_000;

/**
 * The number Connect writes a time value as under its schema: a Timestamp as milliseconds since
 * the epoch, a Date as days since it, a Time as milliseconds since midnight (all UTC); a `Date`
 * under any other schema, or none, as its milliseconds since the epoch.
 */
export function logicalNumberOf(schema: ConnectSchema | undefined, value: Date): number {
  const ms = value.getTime();
  if (schema?.name === DATE_LOGICAL) return Math.floor(ms / DAY_MS);
  if (schema?.name === TIME_LOGICAL) return ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  return ms;
}
