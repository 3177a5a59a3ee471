/**
 * What every single message transform shares: how it declares its configuration keys (as Kafka's
 * `ConfigDef` does), how it reads them, which side of the record it works on (`$Key` or `$Value`),
 * and the checks Kafka's `Requirements` makes of the data, with Kafka's messages.
 *
 * Data follows `connect-record.ts`: with a schema, a struct is a plain object of its fields; without
 * one, a map is a plain object. A `Timestamp`, `Date` or `Time` logical value is a JS `Date`, as
 * Kafka's is a `java.util.Date` (a number of milliseconds is taken in its place).
 */
import { DataException } from '../connect-exceptions.js';
import type { ConnectField, ConnectRecord, ConnectSchema } from '../connect-record.js';

/** The types of keys a transform declares, as `ConfigDef.Type` names them. */
export type TransformKeyType = 'STRING' | 'LIST' | 'BOOLEAN' | 'CLASS';

/** One configuration key of a transform or predicate, relative to its alias's prefix. */
export interface TransformKey {
  name: string;
  type: TransformKeyType;
  required: boolean;
  defaultValue?: string;
  /** The values it may take, when they are few (`ConfigDef.ValidString`). */
  allowed?: readonly string[];
  documentation: string;
}

/** A bad configuration (Kafka's `ConfigException`): the key it is about, when there is one. */
export class TransformConfigError extends Error {
  constructor(
    readonly key: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'TransformConfigError';
  }
}

/** Data a transform cannot handle: Kafka's `DataException`, as the dead-letter headers name it. */
export class TransformDataError extends DataException {}

/** A record as transforms see it: a sink's carries its offset. */
export type TransformRecord = ConnectRecord & { offset?: number };

/** One configured transform: the record changed, or null to drop it. */
export type RecordTransform = (record: TransformRecord) => TransformRecord | null;

/** The configuration of one alias, with its declared defaults applied. */
export class TransformSettings {
  constructor(
    private readonly keys: readonly TransformKey[],
    private readonly values: Record<string, string>,
  ) {}

  private raw(name: string): string | undefined {
    const value = this.values[name];
    if (value !== undefined) return value;
    return this.keys.find((key) => key.name === name)?.defaultValue;
  }

  /** A STRING key; undefined when unset without a default. */
  string(name: string): string | undefined {
    return this.raw(name);
  }

  /** A LIST key, trimmed and without empty entries, as `ConfigDef.parseType` reads one. */
  list(name: string): string[] {
    return (this.raw(name) ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  }

  boolean(name: string): boolean {
    return (this.raw(name) ?? 'false').trim().toLowerCase() === 'true';
  }
}

/**
 * A transform (or predicate) as the registry lists it. `sides` says whether Kafka has `$Key` and
 * `$Value` variants (`key-value`) or one class working on the whole record (`record`).
 */
export interface TransformationPlugin {
  /** The class name without the variant: `org.apache.kafka.connect.transforms.InsertField`. */
  class: string;
  sides: 'key-value' | 'record';
  keys: readonly TransformKey[];
  /** Builds the transform; throws `TransformConfigError` on a configuration Kafka refuses. */
  configure(settings: TransformSettings, side: Side): RecordTransform;
}

export interface PredicatePlugin {
  class: string;
  keys: readonly TransformKey[];
  configure(settings: TransformSettings): (record: TransformRecord) => boolean;
}

export type Side = 'key' | 'value';

/** The schema and data a `$Key` or `$Value` transform works on. */
export function operating(record: TransformRecord, side: Side): { schema?: ConnectSchema; value: unknown } {
  return side === 'key'
    ? { schema: record.keySchema, value: record.key }
    : { schema: record.valueSchema, value: record.value };
}

/** The record with its key (or value) and that one's schema replaced; no schema makes it schemaless. */
export function withOperating(
  record: TransformRecord,
  side: Side,
  schema: ConnectSchema | undefined,
  value: unknown,
): TransformRecord {
  if (side === 'key') {
    const { keySchema: _dropped, ...rest } = record;
    return schema ? { ...rest, key: value, keySchema: schema } : { ...rest, key: value };
  }
  const { valueSchema: _dropped, ...rest } = record;
  return schema ? { ...rest, value, valueSchema: schema } : { ...rest, value };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !Buffer.isBuffer(value) &&
    !(value instanceof Date) &&
    !(value instanceof Map)
  );
}

/** The Java class Kafka would name for a value, so that messages read as Kafka's. */
export function javaClassOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return 'java.lang.String';
  if (typeof value === 'boolean') return 'java.lang.Boolean';
  if (typeof value === 'bigint') return 'java.lang.Long';
  if (typeof value === 'number') return Number.isInteger(value) ? 'java.lang.Long' : 'java.lang.Double';
  if (Buffer.isBuffer(value)) return '[B';
  if (value instanceof Date) return 'java.util.Date';
  if (Array.isArray(value)) return 'java.util.ArrayList';
  return 'java.util.HashMap';
}

/** A map in the absence of a schema (`Requirements.requireMap`). */
export function requireMap(value: unknown, purpose: string): Record<string, unknown> {
  if (value instanceof Map) return Object.fromEntries(value) as Record<string, unknown>;
  if (!isPlainObject(value)) {
    throw new TransformDataError(
      `Only Map objects supported in absence of schema for [${purpose}], found: ${javaClassOf(value)}`,
    );
  }
  return value;
}

/** A struct of a struct schema (`Requirements.requireStruct`). */
export function requireStruct(
  value: unknown,
  schema: ConnectSchema,
  purpose: string,
): Record<string, unknown> {
  if (schema.type !== 'struct' || !isPlainObject(value)) {
    const found = isPlainObject(value) ? 'java.util.HashMap' : javaClassOf(value);
    throw new TransformDataError(`Only Struct objects supported for [${purpose}], found: ${found}`);
  }
  return value;
}

export function fieldsOf(schema: ConnectSchema): ConnectField[] {
  return schema.fields ?? [];
}

/** A struct's field, with its schema's default for a null when asked (`Struct.get` against `getWithoutDefault`). */
export function fieldValue(
  struct: Record<string, unknown>,
  field: ConnectField,
  replaceNullWithDefault: boolean,
): unknown {
  const value = struct[field.field];
  if ((value === null || value === undefined) && replaceNullWithDefault && field.default !== undefined) {
    return field.default;
  }
  return value ?? null;
}

/** A schema's name, version, doc and parameters on a new struct (`SchemaUtil.copySchemaBasics`). */
export function structLike(schema: ConnectSchema, fields: ConnectField[]): ConnectSchema {
  return {
    type: 'struct',
    ...(schema.name !== undefined ? { name: schema.name } : {}),
    ...(schema.version !== undefined ? { version: schema.version } : {}),
    ...(schema.doc !== undefined ? { doc: schema.doc } : {}),
    ...(schema.parameters !== undefined ? { parameters: schema.parameters } : {}),
    fields,
  };
}

/** A field carrying a schema under a (new) name. */
export function fieldNamed(name: string, schema: ConnectSchema): ConnectField {
  const { field: _previous, ...rest } = schema as ConnectField;
  return { ...rest, field: name };
}

/** The schema a field carries, without its name. */
export function schemaOfField(field: ConnectField): ConnectSchema {
  const { field: _name, ...schema } = field;
  return schema;
}

export { DATE_LOGICAL, TIME_LOGICAL, TIMESTAMP_LOGICAL } from '../connect-record.js';

/** Kafka's documentation of `replace.null.with.default`, which most transforms take. */
export const REPLACE_NULL_WITH_DEFAULT: TransformKey = {
  name: 'replace.null.with.default',
  type: 'BOOLEAN',
  required: false,
  defaultValue: 'true',
  documentation:
    'Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.',
};

/** A LIST key that must not be empty (`NonEmptyListValidator`). */
export function nonEmptyList(settings: TransformSettings, name: string): string[] {
  const list = settings.list(name);
  if (list.length === 0)
    throw new TransformConfigError(name, `Invalid value [] for configuration ${name}: Empty list`);
  return list;
}

/**
 * A Java regular expression as JavaScript runs it: the syntax both share (which is what
 * connector configurations use) is taken as is; what JavaScript cannot compile is refused as
 * Kafka's `RegexValidator` refuses an invalid one.
 */
export function javaPattern(name: string, pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch (error) {
    throw new TransformConfigError(
      name,
      `Invalid value ${pattern} for configuration ${name}: Invalid regex: ${(error as Error).message}`,
    );
  }
}
