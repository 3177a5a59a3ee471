/**
 * `Flatten$Key` / `$Value`: nested structs (or maps) become top-level fields named by joining the
 * path with `delimiter`; arrays and their contents are left as they are. A field under an optional
 * parent becomes optional; a parent's default gives its children theirs.
 */
import type { ConnectField, ConnectSchema } from '../connect-record.js';
import {
  fieldNamed,
  fieldsOf,
  isPlainObject,
  javaClassOf,
  operating,
  requireMap,
  requireStruct,
  structLike,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

const PURPOSE = 'flattening';
const LEAF_TYPES = new Set([
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
]);

export const FLATTEN: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.Flatten',
  sides: 'key-value',
  keys: [
    {
      name: 'delimiter',
      type: 'STRING',
      required: false,
      defaultValue: '.',
      documentation:
        'Delimiter to insert between field names from the input record when generating field names for the output record',
    },
  ],
  configure(settings, side) {
    const delimiter = settings.string('delimiter') ?? '.';
    const nameOf = (prefix: string, name: string) => (prefix === '' ? name : `${prefix}${delimiter}${name}`);

    const flattenMap = (map: Record<string, unknown>, prefix: string, out: Record<string, unknown>): void => {
      for (const [key, value] of Object.entries(map)) {
        const name = nameOf(prefix, key);
        if (value === null || value === undefined) out[name] = null;
        else if (value instanceof Map || isPlainObject(value))
          flattenMap(requireMap(value, PURPOSE), name, out);
        else if (value instanceof Date) {
          throw new TransformDataError(
            `Flatten transformation was passed a value of type class ${javaClassOf(value)} which is not supported by Connect's data API`,
          );
        } else out[name] = value;
      }
    };

    const flattenSchema = (
      schema: ConnectSchema,
      prefix: string,
      optional: boolean,
      parentDefault: Record<string, unknown> | undefined,
      out: ConnectField[],
    ): void => {
      for (const field of fieldsOf(schema)) {
        const name = nameOf(prefix, field.field);
        const fieldOptional = optional || field.optional === true;
        const fieldDefault =
          field.default !== undefined && field.default !== null
            ? field.default
            : parentDefault?.[field.field];
        if (LEAF_TYPES.has(field.type)) {
          const { default: _default, optional: _optional, ...basics } = field;
          out.push(
            fieldNamed(name, {
              ...basics,
              ...(fieldOptional ? { optional: true } : {}),
              ...(fieldDefault !== undefined && fieldDefault !== null ? { default: fieldDefault } : {}),
            }),
          );
        } else if (field.type === 'struct') {
          flattenSchema(
            field,
            name,
            fieldOptional,
            isPlainObject(fieldDefault) ? fieldDefault : undefined,
            out,
          );
        } else {
          throw new TransformDataError(
            `Flatten transformation does not support ${field.type.toUpperCase()} for record with schemas (for field ${name}).`,
          );
        }
      }
    };

    const flattenStruct = (
      struct: Record<string, unknown> | null,
      schema: ConnectSchema,
      prefix: string,
      out: Record<string, unknown>,
    ): void => {
      if (struct === null) return;
      for (const field of fieldsOf(schema)) {
        const name = nameOf(prefix, field.field);
        const value = struct[field.field] ?? null;
        if (field.type === 'struct') {
          flattenStruct(value === null ? null : requireStruct(value, field, PURPOSE), field, name, out);
        } else {
          out[name] = value === null && field.default !== undefined ? field.default : value;
        }
      }
    };

    return (record) => {
      const { schema, value } = operating(record, side);
      if (value === null || value === undefined) return record;
      if (!schema) {
        const out: Record<string, unknown> = {};
        flattenMap(requireMap(value, PURPOSE), '', out);
        return withOperating(record, side, undefined, out);
      }
      const fields: ConnectField[] = [];
      flattenSchema(
        schema,
        '',
        schema.optional === true,
        isPlainObject(schema.default) ? schema.default : undefined,
        fields,
      );
      const updatedSchema = structLike(schema, fields);
      const out: Record<string, unknown> = {};
      flattenStruct(requireStruct(value, schema, PURPOSE), schema, '', out);
      return withOperating(record, side, updatedSchema, out);
    };
  },
};
