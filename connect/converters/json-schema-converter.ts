/**
 * Confluent's `JsonSchemaConverter`: JSON values whose JSON Schema is in the schema registry. The
 * schema maps to Connect as Confluent's JsonSchemaData maps it: an object with properties to a
 * struct (named by its title; a property not `required` is optional), integer to int64, number
 * to float64, a `connect.type` annotation to that type, `oneOf` with null (or a type list with
 * null) to an optional schema, an object of `additionalProperties` to a map.
 */
import type { ConnectSchema } from '../connect-record.js';
import { DataException } from '../connect-exceptions.js';
import { parseJson } from './json-converter.js';
import { valueFromJson, valueToJson } from './json-values.js';
import { registryConverterPlugin, type RegistryFormat } from './registry-converter.js';

type JsonSchema = { [key: string]: unknown } | boolean;

const CONNECT_TYPES = new Set<string>(['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'bytes']);

function isNull(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'null';
}

/** The Connect schema of a JSON Schema. */
export function connectSchemaOfJson(schema: JsonSchema): ConnectSchema {
  if (typeof schema !== 'object') throw new DataException('a boolean JSON Schema has no Connect schema');
  for (const key of ['oneOf', 'anyOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const others = branches.filter((branch) => !isNull(branch));
      if (others.length !== 1) throw new DataException(`${key} other than [null, schema] is not supported`);
      return { ...connectSchemaOfJson(others[0] as JsonSchema), optional: others.length < branches.length };
    }
  }
  let type = schema.type;
  let optional = false;
  if (Array.isArray(type)) {
    const others = type.filter((each) => each !== 'null');
    optional = others.length < type.length;
    if (others.length !== 1) throw new DataException(`a type list other than [null, type] is not supported`);
    type = others[0];
  }
  const connectType = schema['connect.type'];
  const base = ((): ConnectSchema => {
    if (typeof connectType === 'string' && CONNECT_TYPES.has(connectType))
      return { type: connectType as ConnectSchema['type'] };
    switch (type) {
      case 'integer':
        return { type: 'int64' };
      case 'number':
        return { type: 'float64' };
      case 'string':
        return { type: 'string' };
      case 'boolean':
        return { type: 'boolean' };
      case 'array':
        return { type: 'array', items: connectSchemaOfJson((schema.items as JsonSchema | undefined) ?? {}) };
      case 'object': {
        const properties = schema.properties as Record<string, JsonSchema> | undefined;
        if (!properties && typeof schema.additionalProperties === 'object') {
          return {
            type: 'map',
            keys: { type: 'string' },
            values: connectSchemaOfJson(schema.additionalProperties as JsonSchema),
          };
        }
        const required = new Set((schema.required as string[] | undefined) ?? []);
        return {
          type: 'struct',
          ...(typeof schema.title === 'string' ? { name: schema.title } : {}),
          fields: Object.entries(properties ?? {}).map(([name, property]) => {
            const field = connectSchemaOfJson(property);
            return { ...field, field: name, optional: field.optional === true || !required.has(name) };
          }),
        };
      }
      default:
        throw new DataException(`JSON Schema type ${JSON.stringify(type)} is not supported`);
    }
  })();
  return optional ? { ...base, optional } : base;
}

/** The JSON Schema a Connect schema is written with. */
export function jsonSchemaOf(schema: ConnectSchema): Record<string, unknown> {
  const base = ((): Record<string, unknown> => {
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
        return { type: 'integer', 'connect.type': schema.type };
      case 'float32':
        return { type: 'number', 'connect.type': 'float32' };
      case 'float64':
        return { type: 'number' };
      case 'boolean':
      case 'string':
        return { type: schema.type };
      case 'bytes':
        return { type: 'string', 'connect.type': 'bytes' };
      case 'array':
        return { type: 'array', items: schema.items ? jsonSchemaOf(schema.items) : {} };
      case 'map':
        return {
          type: 'object',
          'connect.type': 'map',
          additionalProperties: schema.values ? jsonSchemaOf(schema.values) : {},
        };
      case 'struct': {
        const fields = schema.fields ?? [];
        return {
          type: 'object',
          ...(schema.name ? { title: schema.name } : {}),
          properties: Object.fromEntries(fields.map((field) => [field.field, jsonSchemaOf(field)])),
          required: fields.filter((field) => !field.optional).map((field) => field.field),
        };
      }
    }
  })();
  return schema.optional ? { oneOf: [{ type: 'null' }, base] } : base;
}

const JSON_SCHEMA: RegistryFormat<ConnectSchema> = {
  name: 'JSON Schema',
  schemaType: 'JSON',
  parse: (text) => connectSchemaOfJson(JSON.parse(text) as JsonSchema),
  decode: (schema, payload) => ({ schema, value: valueFromJson(schema, parseJson(payload)) }),
  schemaOf(schema) {
    const json = jsonSchemaOf({ ...schema, optional: false });
    return {
      text: JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...json }),
      recordName: schema.name ?? 'ConnectDefault',
    };
  },
  encode: (_schema, connectSchema, value) => Buffer.from(JSON.stringify(valueToJson(value, connectSchema))),
};

export const JSON_SCHEMA_CONVERTER = registryConverterPlugin(
  'io.confluent.connect.json.JsonSchemaConverter',
  JSON_SCHEMA,
);
