/**
 * Connect values to and from JSON as Kafka's JsonConverter writes them: bytes as base64, a struct
 * as an object of its fields, a map as an object (string keys), int64 past 2^53 as a bigint read
 * back as a number.
 */
import { logicalNumberOf, type ConnectSchema } from '../connect-record.js';
import { DataException } from '../connect-exceptions.js';
import { isStruct } from './converter.js';

/** The Connect value a JSON value is under `schema` (bytes decoded from base64, nested alike). */
export function valueFromJson(schema: ConnectSchema | undefined, json: unknown): unknown {
  if (json === null || json === undefined || !schema) return json ?? null;
  switch (schema.type) {
    case 'bytes':
      if (typeof json !== 'string') throw new DataException(`Invalid bytes value: ${JSON.stringify(json)}`);
      return Buffer.from(json, 'base64');
    case 'struct': {
      if (!isStruct(json))
        throw new DataException(`Struct schema's value is not an object: ${JSON.stringify(json)}`);
      return Object.fromEntries(
        (schema.fields ?? []).map((field) => [field.field, valueFromJson(field, json[field.field])]),
      );
    }
    case 'array':
      if (!Array.isArray(json))
        throw new DataException(`Array schema's value is not an array: ${JSON.stringify(json)}`);
      return json.map((item) => valueFromJson(schema.items, item));
    case 'map':
      if (!isStruct(json))
        throw new DataException(`Map schema's value is not an object: ${JSON.stringify(json)}`);
      return Object.fromEntries(
        Object.entries(json).map(([key, item]) => [key, valueFromJson(schema.values, item)]),
      );
    default:
      return json;
  }
}

/**
 * The JSON value of a Connect value under its schema: bytes in base64, bigints as numbers, a
 * Timestamp, Date or Time as the number Connect writes it as, the rest alike.
 */
export function valueToJson(value: unknown, schema?: ConnectSchema): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return logicalNumberOf(schema, value);
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value].map(([key, item]) => [String(key), valueToJson(item, schema?.values)]),
    );
  }
  if (Array.isArray(value)) return value.map((item) => valueToJson(item, schema?.items));
  if (typeof value === 'object') {
    const fields = new Map((schema?.fields ?? []).map((field) => [field.field, field]));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        valueToJson(item, schema?.type === 'map' ? schema.values : fields.get(key)),
      ]),
    );
  }
  return value;
}

/** A schema as JsonConverter's envelope writes it: its defined keys only. */
export function schemaToJson(schema: ConnectSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
