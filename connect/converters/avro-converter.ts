/**
 * Confluent's `AvroConverter`: Avro records through the schema registry. Avro maps to Connect as
 * Confluent's AvroData maps it: record to struct (named by the record's full name), int to int32,
 * long to int64, float and double to float32 and float64, enum to string, fixed to bytes, a union
 * with null to an optional schema, and the date, time-millis, timestamp-millis and decimal logical
 * types to Connect's Date, Time, Timestamp and Decimal. A struct without a name is written as
 * Confluent names it, `io.confluent.connect.avro.ConnectDefault`.
 */
import avro from 'avsc';
import { logicalNumberOf, type ConnectField, type ConnectSchema } from '../connect-record.js';
import { DataException } from '../connect-exceptions.js';
import { isStruct } from './converter.js';
import { registryConverterPlugin, type RegistryFormat } from './registry-converter.js';

type AvroSchema = string | AvroSchema[] | { type: AvroSchema; [key: string]: unknown };

const PRIMITIVES: Record<string, ConnectSchema['type']> = {
  int: 'int32',
  long: 'int64',
  float: 'float32',
  double: 'float64',
  boolean: 'boolean',
  string: 'string',
  bytes: 'bytes',
};

const LOGICAL_TO_CONNECT: Record<string, string> = {
  date: 'org.apache.kafka.connect.data.Date',
  'time-millis': 'org.apache.kafka.connect.data.Time',
  'timestamp-millis': 'org.apache.kafka.connect.data.Timestamp',
  decimal: 'org.apache.kafka.connect.data.Decimal',
};

const CONNECT_TO_LOGICAL = Object.fromEntries(
  Object.entries(LOGICAL_TO_CONNECT).map(([avro, connect]) => [connect, avro]),
);

const fullName = (name: string, namespace: string | undefined) =>
  name.includes('.') || !namespace ? name : `${namespace}.${name}`;

/** The Connect schema of an Avro schema; `named` holds the named types seen so far, for references. */
export function connectSchemaOfAvro(
  schema: AvroSchema,
  named = new Map<string, ConnectSchema>(),
  namespace?: string,
): ConnectSchema {
  if (typeof schema === 'string') {
    if (PRIMITIVES[schema]) return { type: PRIMITIVES[schema] };
    const found = named.get(fullName(schema, namespace)) ?? named.get(schema);
    if (!found) throw new DataException(`Avro type ${schema} is not supported`);
    return found;
  }
  if (Array.isArray(schema)) {
    const branches = schema.filter((branch) => branch !== 'null');
    if (branches.length !== 1 || branches.length === schema.length) {
      throw new DataException('Avro unions other than [null, type] are not supported');
    }
    return { ...connectSchemaOfAvro(branches[0]!, named, namespace), optional: true };
  }
  const logical = typeof schema.logicalType === 'string' ? LOGICAL_TO_CONNECT[schema.logicalType] : undefined;
  if (logical) {
    const base = connectSchemaOfAvro(schema.type, named, namespace);
    const scale = schema.scale;
    return {
      ...base,
      name: logical,
      version: 1,
      ...(scale === undefined ? {} : { parameters: { scale: String(scale) } }),
    };
  }
  switch (schema.type) {
    case 'record': {
      const ownNamespace = (schema.namespace as string | undefined) ?? namespace;
      const name = fullName(String(schema.name), ownNamespace);
      const struct: ConnectSchema = { type: 'struct', name, fields: [] };
      named.set(name, struct);
      for (const field of schema.fields as { name: string; type: AvroSchema; doc?: string }[]) {
        struct.fields!.push({ ...connectSchemaOfAvro(field.type, named, ownNamespace), field: field.name });
      }
      return struct;
    }
    case 'enum': {
      const name = fullName(String(schema.name), (schema.namespace as string | undefined) ?? namespace);
      const enumSchema: ConnectSchema = { type: 'string', name };
      named.set(name, enumSchema);
      return enumSchema;
    }
    case 'fixed': {
      const name = fullName(String(schema.name), (schema.namespace as string | undefined) ?? namespace);
      const fixed: ConnectSchema = { type: 'bytes', name };
      named.set(name, fixed);
      return fixed;
    }
    case 'array':
      return { type: 'array', items: connectSchemaOfAvro(schema.items as AvroSchema, named, namespace) };
    case 'map':
      return {
        type: 'map',
        keys: { type: 'string' },
        values: connectSchemaOfAvro(schema.values as AvroSchema, named, namespace),
      };
    default:
      return connectSchemaOfAvro(schema.type, named, namespace);
  }
}

const AVRO_NAME = /[^A-Za-z0-9_]/g;

/**
 * The Avro schema a Connect schema is written with. A named struct met again (a change event's
 * before and after) is written as a reference to its first definition, as Avro requires.
 */
export function avroSchemaOf(
  schema: ConnectSchema,
  unnamed: { count: number; defined?: Set<string> } = { count: 0 },
): AvroSchema {
  const base = ((): AvroSchema => {
    const logical = schema.name ? CONNECT_TO_LOGICAL[schema.name] : undefined;
    if (logical === 'decimal') {
      return {
        type: 'bytes',
        logicalType: 'decimal',
        precision: 64,
        scale: Number(schema.parameters?.scale ?? 0),
      };
    }
    if (logical) return { type: schema.type === 'int64' ? 'long' : 'int', logicalType: logical };
    switch (schema.type) {
      case 'int8':
      case 'int16':
        return { type: 'int', 'connect.type': schema.type };
      case 'int32':
        return 'int';
      case 'int64':
        return 'long';
      case 'float32':
        return 'float';
      case 'float64':
        return 'double';
      case 'boolean':
      case 'string':
      case 'bytes':
        return schema.type;
      case 'array':
        return { type: 'array', items: avroSchemaOf(requireSchema(schema.items, 'array items'), unnamed) };
      case 'map':
        return { type: 'map', values: avroSchemaOf(requireSchema(schema.values, 'map values'), unnamed) };
      case 'struct': {
        unnamed.count += schema.name ? 0 : 1;
        const qualified =
          schema.name ?? `io.confluent.connect.avro.ConnectDefault${unnamed.count > 1 ? unnamed.count : ''}`;
        const dot = qualified.lastIndexOf('.');
        const name = qualified.slice(dot + 1).replace(AVRO_NAME, '_');
        const namespace =
          dot > 0
            ? qualified
                .slice(0, dot)
                .split('.')
                .map((part) => part.replace(AVRO_NAME, '_'))
                .join('.')
            : undefined;
        const full = namespace ? `${namespace}.${name}` : name;
        unnamed.defined ??= new Set();
        if (unnamed.defined.has(full)) return full;
        unnamed.defined.add(full);
        return {
          type: 'record',
          name,
          ...(namespace ? { namespace } : {}),
          fields: (schema.fields ?? []).map((field: ConnectField) => ({
            name: field.field,
            type: avroSchemaOf(field, unnamed),
            ...(field.optional ? { default: null } : {}),
          })),
        };
      }
    }
  })();
  return schema.optional ? ['null', base] : base;
}

function requireSchema(schema: ConnectSchema | undefined, what: string): ConnectSchema {
  if (!schema) throw new DataException(`the schema has no ${what}`);
  return schema;
}

/** A decoded Avro value as plain Connect data: records as plain objects, bytes as Buffers. */
function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainValue(item)]));
  }
  return value;
}

/** A Connect value as avsc writes it: every field of a struct present, nulls where absent. */
function avroValue(schema: ConnectSchema | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return logicalNumberOf(schema, value);
  if (!schema) return value;
  if (schema.type === 'struct') {
    if (!isStruct(value))
      throw new DataException(`a struct value must be an object, not ${JSON.stringify(value)}`);
    return Object.fromEntries(
      (schema.fields ?? []).map((field) => [field.field, avroValue(field, value[field.field])]),
    );
  }
  if (schema.type === 'array' && Array.isArray(value))
    return value.map((item) => avroValue(schema.items, item));
  if (schema.type === 'map' && isStruct(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, avroValue(schema.values, item)]),
    );
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

interface ParsedAvro {
  type: avro.Type;
  schema: ConnectSchema;
}

const AVRO: RegistryFormat<ParsedAvro> = {
  name: 'Avro',
  schemaType: 'AVRO',
  parse(text) {
    const json = JSON.parse(text) as AvroSchema;
    return { type: avro.Type.forSchema(json as avro.Schema), schema: connectSchemaOfAvro(json) };
  },
  decode({ type, schema }, payload) {
    return { schema, value: plainValue(type.fromBuffer(payload)) };
  },
  schemaOf(schema) {
    const avroSchema = avroSchemaOf({ ...schema, optional: false });
    // Confluent names a primitive's subject record after the type itself.
    const recordName =
      typeof avroSchema === 'string'
        ? avroSchema
        : !Array.isArray(avroSchema) && avroSchema.type === 'record'
          ? fullName(String(avroSchema.name), avroSchema.namespace as string | undefined)
          : schema.type;
    return { text: JSON.stringify(avroSchema), recordName };
  },
  encode({ type }, schema, value) {
    const written = avroValue(schema, value);
    const paths: string[] = [];
    if (!type.isValid(written, { errorHook: (path) => paths.push(path.join('.') || 'the value') })) {
      throw new DataException(`the value does not match its schema at ${paths.join(', ')}`);
    }
    return type.toBuffer(written);
  },
};

export const AVRO_CONVERTER = registryConverterPlugin('io.confluent.connect.avro.AvroConverter', AVRO);
