/**
 * `Cast$Key` / `$Value`: fields (`field:type` pairs) or the whole key or value (one bare type)
 * cast to int8…int64, float32, float64, boolean or string, as Kafka casts them: numbers narrow as
 * Java's do, strings parse strictly, booleans are 1 or 0, bytes become base64 strings, and a
 * Date, Time or Timestamp cast to a number becomes Kafka's encoding of it.
 */
import type { ConnectSchema, ConnectSchemaType } from '../connect-record.js';
import {
  DATE_LOGICAL,
  fieldNamed,
  fieldsOf,
  fieldValue,
  javaClassOf,
  operating,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  TIME_LOGICAL,
  TIMESTAMP_LOGICAL,
  TransformConfigError,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

const PURPOSE = 'cast types';
const OUTPUT_TYPES = ['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string'] as const;
type CastType = (typeof OUTPUT_TYPES)[number];
const INPUT_TYPES: readonly ConnectSchemaType[] = [...OUTPUT_TYPES, 'bytes'];
const ALL_TYPES: readonly ConnectSchemaType[] = [...INPUT_TYPES, 'array', 'map', 'struct'];
const supported = (types: readonly string[]) => `[${types.map((type) => type.toUpperCase()).join(', ')}]`;
const DAY_MS = 86_400_000;

/** The cast spec: field to type, the whole value under the empty name. */
function castsOf(spec: string[]): Map<string, CastType> {
  if (spec.length === 0) throw new TransformConfigError('spec', 'Must specify at least one field to cast.');
  const casts = new Map<string, CastType>();
  const typeOf = (text: string): CastType => {
    const type = text.trim().toLowerCase() as ConnectSchemaType;
    if (!ALL_TYPES.includes(type)) {
      throw new TransformConfigError('spec', `Invalid type found in casting spec: ${text.trim()}`);
    }
    if (!(OUTPUT_TYPES as readonly string[]).includes(type)) {
      throw new TransformConfigError(
        'spec',
        `Cast transformation does not support casting to ${type.toUpperCase()}; supported types are ${supported(OUTPUT_TYPES)}`,
      );
    }
    return type as CastType;
  };
  for (const mapping of spec) {
    const parts = mapping.split(':');
    if (parts.length > 2) {
      throw new TransformConfigError(
        'spec',
        `Invalid value [${spec.join(', ')}] for configuration renames: Invalid rename mapping: ${mapping}`,
      );
    }
    if (parts.length === 1) casts.set('', typeOf(parts[0]!));
    else casts.set(parts[0]!.trim(), typeOf(parts[1]!));
  }
  if (casts.has('') && spec.length > 1) {
    throw new TransformConfigError(
      'spec',
      'Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec',
    );
  }
  return casts;
}

/** The Connect type of a schemaless value, as `ConnectSchema.schemaType` infers it. */
function inferredType(value: unknown): ConnectSchemaType | undefined {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (Buffer.isBuffer(value)) return 'bytes';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return 'map';
  return undefined;
}

/** A Date, Time or Timestamp as the number Kafka stores for it. */
function encodedLogical(schema: ConnectSchema, value: unknown): unknown {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : undefined;
  if (ms === undefined) return value;
  if (schema.name === DATE_LOGICAL) return Math.floor(ms / DAY_MS);
  if (schema.name === TIME_LOGICAL) return ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  if (schema.name === TIMESTAMP_LOGICAL) return ms;
  return value;
}

/** Java's narrowing of a long to a signed integer of `bits`. */
function wrap(value: bigint, bits: number): number {
  return Number(BigInt.asIntN(bits, value));
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const FLOAT_TEXT = /^\s*[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?\s*$/;
const RANGES: Record<'int8' | 'int16' | 'int32' | 'int64', [bigint, bigint]> = {
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-9223372036854775808n, 9223372036854775807n],
};

function integerOf(value: unknown, type: 'int8' | 'int16' | 'int32' | 'int64'): number | bigint {
  let whole: bigint;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') whole = value;
  else if (typeof value === 'number') {
    if (Number.isNaN(value)) return 0;
    whole = BigInt(Math.trunc(Math.max(Math.min(value, 9.2e18), -9.2e18)));
  } else if (typeof value === 'string') {
    const [low, high] = RANGES[type];
    if (!INTEGER_TEXT.test(value) || BigInt(value) < low || BigInt(value) > high) {
      throw new TransformDataError(`Value (${value}) was out of range for requested data type`);
    }
    whole = BigInt(value);
  } else {
    throw new TransformDataError(`Unexpected type in Cast transformation: class ${javaClassOf(value)}`);
  }
  if (type !== 'int64') return wrap(whole, Number(type.slice(3)));
  const long = BigInt.asIntN(64, whole);
  return long >= BigInt(Number.MIN_SAFE_INTEGER) && long <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(long)
    : long;
}

function floatOf(value: unknown, type: 'float32' | 'float64'): number {
  let double: number;
  if (typeof value === 'boolean') double = value ? 1 : 0;
  else if (typeof value === 'number' || typeof value === 'bigint') double = Number(value);
  else if (typeof value === 'string') {
    if (!FLOAT_TEXT.test(value)) {
      throw new TransformDataError(`Value (${value}) was out of range for requested data type`);
    }
    double = Number(value.trim().replace(/[fFdD]$/, ''));
  } else {
    throw new TransformDataError(`Unexpected type in Cast transformation: class ${javaClassOf(value)}`);
  }
  return type === 'float32' ? Math.fround(double) : double;
}

/** A double as Java's `Double.toString` prints one (`1.0`, `1.5E10`). */
function javaDouble(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e7 || magnitude < 1e-3)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
  }
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function stringOf(value: unknown, type: ConnectSchemaType): string {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'number' && (type === 'float32' || type === 'float64')) return javaDouble(value);
  return String(value);
}

function castValue(schema: ConnectSchema | undefined, value: unknown, target: CastType): unknown {
  if (value === null || value === undefined) return null;
  const from = schema ? schema.type : inferredType(value);
  if (from === undefined) {
    throw new TransformDataError(
      `Cast transformation was passed a value of type class ${javaClassOf(value)} which is not supported by Connect's data API`,
    );
  }
  if (!INPUT_TYPES.includes(from)) {
    throw new TransformDataError(
      `Cast transformation does not support casting from ${from.toUpperCase()}; supported types are ${supported(INPUT_TYPES)}`,
    );
  }
  const source = schema?.name !== undefined && target !== 'string' ? encodedLogical(schema, value) : value;
  switch (target) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return integerOf(source, target);
    case 'float32':
    case 'float64':
      return floatOf(source, target);
    case 'boolean':
      if (typeof source === 'number' || typeof source === 'bigint') return Number(source) !== 0;
      if (typeof source === 'boolean') return source;
      if (typeof source === 'string') return source.toLowerCase() === 'true';
      throw new TransformDataError(`Unexpected type in Cast transformation: class ${javaClassOf(source)}`);
    case 'string':
      return stringOf(source, from);
  }
}

export const CAST: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.Cast',
  sides: 'key-value',
  keys: [
    {
      name: 'spec',
      type: 'LIST',
      required: true,
      documentation:
        'List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string.',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const casts = castsOf(settings.list('spec'));
    const whole = casts.get('');
    const replaceNull = settings.boolean('replace.null.with.default');

    const castSchema = (schema: ConnectSchema, target: CastType): ConnectSchema => ({
      type: target,
      ...(schema.optional ? { optional: true } : {}),
      ...(schema.default !== undefined && schema.default !== null
        ? { default: castValue(schema, schema.default, target) }
        : {}),
    });

    return (record) => {
      const { schema, value } = operating(record, side);
      if (value === null || value === undefined) return record;
      if (!schema) {
        if (whole) return withOperating(record, side, undefined, castValue(undefined, value, whole));
        const map = requireMap(value, PURPOSE);
        const updated = { ...map };
        for (const [name, target] of casts) updated[name] = castValue(undefined, map[name], target);
        return withOperating(record, side, undefined, updated);
      }
      if (whole) {
        const { fields: _fields, type: _type, default: _default, ...basics } = schema;
        return withOperating(
          record,
          side,
          { ...basics, ...castSchema(schema, whole) },
          castValue(schema, value, whole),
        );
      }
      const struct = requireStruct(value, schema, PURPOSE);
      const updated: Record<string, unknown> = {};
      const fields = fieldsOf(schema).map((each) => {
        const target = casts.get(each.field);
        const original = fieldValue(struct, each, replaceNull);
        updated[each.field] = target ? castValue(each, original, target) : original;
        return target ? fieldNamed(each.field, castSchema(each, target)) : each;
      });
      return withOperating(record, side, { ...schema, fields }, updated);
    };
  },
};
