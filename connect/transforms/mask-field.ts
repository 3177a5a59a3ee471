/**
 * `MaskField$Key` / `$Value`: the named fields replaced by their type's empty value (0, false,
 * "", an empty list or map, the epoch for a date), or by `replacement` converted to the field's
 * type (numbers and strings only).
 */
import type { ConnectSchema } from '../connect-record.js';
import {
  DATE_LOGICAL,
  fieldsOf,
  fieldValue,
  javaClassOf,
  nonEmptyList,
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

const PURPOSE = 'mask fields';
const DATE_LOGICALS = new Set([DATE_LOGICAL, TIME_LOGICAL, TIMESTAMP_LOGICAL]);
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** What kind of value a field holds: from its schema when there is one, else from the value. */
type Kind = 'integer' | 'decimal' | 'bigint' | 'boolean' | 'string' | 'date' | 'array' | 'map' | 'other';

function kindOf(value: unknown, schema: ConnectSchema | undefined): Kind {
  if (schema) {
    if (schema.name !== undefined && DATE_LOGICALS.has(schema.name)) return 'date';
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
        return typeof value === 'bigint' ? 'bigint' : 'integer';
      case 'float32':
      case 'float64':
        return 'decimal';
      case 'boolean':
        return 'boolean';
      case 'string':
        return 'string';
      case 'array':
        return 'array';
      case 'map':
        return 'map';
      default:
        return 'other';
    }
  }
  if (typeof value === 'bigint') return 'bigint';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'decimal';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map || (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)))
    return 'map';
  return 'other';
}

function emptyOf(kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'integer':
    case 'decimal':
      return 0;
    case 'bigint':
      return 0n;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'date':
      return new Date(0);
    case 'array':
      return [];
    case 'map':
      return value instanceof Map ? new Map() : {};
    default:
      throw new TransformDataError(`Cannot mask value of type: class ${javaClassOf(value)}`);
  }
}

function replacementOf(kind: Kind, value: unknown, replacement: string): unknown {
  const notNumber = () =>
    new TransformDataError(`Unable to convert ${replacement} (class java.lang.String) to number`);
  switch (kind) {
    case 'string':
      return replacement;
    case 'integer':
      if (!INTEGER.test(replacement.trim())) throw notNumber();
      return Number(replacement);
    case 'bigint':
      if (!INTEGER.test(replacement.trim())) throw notNumber();
      return BigInt(replacement.trim());
    case 'decimal':
      if (!DECIMAL.test(replacement.trim())) throw notNumber();
      return Number(replacement);
    default:
      throw new TransformDataError(
        `Cannot mask value of type class ${javaClassOf(value)} with custom replacement.`,
      );
  }
}

export const MASK_FIELD: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.MaskField',
  sides: 'key-value',
  keys: [
    { name: 'fields', type: 'LIST', required: true, documentation: 'Names of fields to mask.' },
    {
      name: 'replacement',
      type: 'STRING',
      required: false,
      documentation:
        "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values only).",
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const masked = new Set(nonEmptyList(settings, 'fields'));
    const replacement = settings.string('replacement');
    if (replacement === '') {
      throw new TransformConfigError(
        'replacement',
        'Invalid value  for configuration replacement: String must be non-empty',
      );
    }
    const replaceNull = settings.boolean('replace.null.with.default');
    const mask = (value: unknown, schema: ConnectSchema | undefined): unknown => {
      if (value === null || value === undefined) return null;
      const kind = kindOf(value, schema);
      return replacement === undefined ? emptyOf(kind, value) : replacementOf(kind, value, replacement);
    };

    return (record) => {
      const { schema, value } = operating(record, side);
      if (!schema) {
        const map = requireMap(value, PURPOSE);
        const updated = { ...map };
        for (const name of masked) updated[name] = mask(map[name], undefined);
        return withOperating(record, side, undefined, updated);
      }
      const struct = requireStruct(value, schema, PURPOSE);
      const updated: Record<string, unknown> = {};
      for (const each of fieldsOf(schema)) {
        const original = fieldValue(struct, each, replaceNull);
        updated[each.field] = masked.has(each.field) ? mask(original, each) : original;
      }
      return withOperating(record, side, schema, updated);
    };
  },
};
