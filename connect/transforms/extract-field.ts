/**
 * `ExtractField$Key` / `$Value`: the key (or value) replaced by one of its fields, nested ones
 * reached with `field.syntax.version=V2`. A null passes through.
 */
import { fieldAt, FIELD_SYNTAX_VERSION, fieldPathOf, mapValueAt, structValueAt } from './field-path.js';
import {
  operating,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  schemaOfField,
  TransformConfigError,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

const PURPOSE = 'field extraction';

export const EXTRACT_FIELD: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.ExtractField',
  sides: 'key-value',
  keys: [
    { name: 'field', type: 'STRING', required: true, documentation: 'Field name to extract.' },
    REPLACE_NULL_WITH_DEFAULT,
    FIELD_SYNTAX_VERSION,
  ],
  configure(settings, side) {
    const path = settings.string('field') ?? '';
    let steps: string[];
    try {
      steps = fieldPathOf(path, settings.string('field.syntax.version'));
    } catch (error) {
      throw new TransformConfigError('field', (error as Error).message);
    }
    const replaceNull = settings.boolean('replace.null.with.default');
    return (record) => {
      const { schema, value } = operating(record, side);
      if (!schema) {
        const map = value === null || value === undefined ? null : requireMap(value, PURPOSE);
        return withOperating(record, side, undefined, map === null ? null : mapValueAt(map, steps));
      }
      const field = fieldAt(schema, steps);
      if (!field) throw new TransformDataError(`Unknown field: ${path}`);
      const struct = value === null || value === undefined ? null : requireStruct(value, schema, PURPOSE);
      return withOperating(
        record,
        side,
        schemaOfField(field),
        struct === null ? null : structValueAt(struct, schema, steps, replaceNull),
      );
    };
  },
};
