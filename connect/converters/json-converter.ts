/**
 * Kafka's `JsonConverter`. With `schemas.enable` (true by default) a record with a schema is
 * written in the `{"schema": …, "payload": …}` envelope and an envelope is read with its schema;
 * JSON that is no envelope is read schemaless and a record without a schema written as plain JSON
 * (where Kafka's converter refuses the one and writes `{"schema":null,…}` for the other), so topics
 * of plain JSON keep flowing under the default. With `schemas.enable=false` the JSON is the value,
 * whatever its shape, as in Kafka.
 */
import type { ConnectSchema } from '../connect-record.js';
import { DataException } from '../connect-exceptions.js';
import type { Converter, ConverterPlugin } from './converter.js';
import { schemaToJson, valueFromJson, valueToJson } from './json-values.js';

function isEnvelope(value: unknown): value is { schema: ConnectSchema | null; payload: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 2 &&
    'schema' in value &&
    'payload' in value
  );
}

/** Parses JSON bytes; Kafka's message for bytes that are not JSON. */
export function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new DataException(
      `Converting byte[] to Kafka Connect data failed due to serialization error: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

const SCHEMA_TYPES = new Set([
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
  'array',
  'map',
  'struct',
]);

function checkedSchema(schema: ConnectSchema): ConnectSchema {
  if (!SCHEMA_TYPES.has(schema.type)) {
    throw new DataException(`Unknown schema type: ${String(schema.type)}`);
  }
  return schema;
}

export const JSON_CONVERTER: ConverterPlugin = {
  class: 'org.apache.kafka.connect.json.JsonConverter',
  create(config): Converter {
    const schemasEnabled = (config['schemas.enable'] ?? 'true').trim().toLowerCase() !== 'false';
    return {
      className: JSON_CONVERTER.class,
      async toConnectData(_topic, bytes) {
        if (bytes === null || bytes.length === 0) return { value: null };
        const parsed = parseJson(bytes);
        if (schemasEnabled && isEnvelope(parsed)) {
          if (parsed.schema === null) return { value: parsed.payload };
          const schema = checkedSchema(parsed.schema);
          return { schema, value: valueFromJson(schema, parsed.payload) };
        }
        return { value: parsed };
      },
      async fromConnectData(_topic, schema, value) {
        if (schemasEnabled && schema) {
          return Buffer.from(
            JSON.stringify({ schema: schemaToJson(schema), payload: valueToJson(value, schema) }),
          );
        }
        if (value === null || value === undefined) return null;
        return Buffer.from(JSON.stringify(valueToJson(value)));
      },
    };
  },
  problems(config): Record<string, string[]> {
    const enabled = config['schemas.enable'];
    return enabled !== undefined && !['true', 'false'].includes(enabled.trim().toLowerCase())
      ? {
          'schemas.enable': [
            `Invalid value ${enabled} for configuration schemas.enable: Expected value to be either true or false`,
          ],
        }
      : {};
  },
};
