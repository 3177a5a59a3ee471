/** `ValueToKey`: the key replaced by a struct (or map) of the named fields of the value. */
import {
  fieldNamed,
  fieldsOf,
  fieldValue,
  nonEmptyList,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

const PURPOSE = 'copying fields from value to key';

export const VALUE_TO_KEY: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.ValueToKey',
  sides: 'record',
  keys: [
    {
      name: 'fields',
      type: 'LIST',
      required: true,
      documentation: 'Field names on the record value to extract as the record key.',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings) {
    const fields = nonEmptyList(settings, 'fields');
    const replaceNull = settings.boolean('replace.null.with.default');
    return (record) => {
      const schema = record.valueSchema;
      if (!schema) {
        const value = requireMap(record.value, PURPOSE);
        return withOperating(
          record,
          'key',
          undefined,
          Object.fromEntries(fields.map((name) => [name, value[name] ?? null])),
        );
      }
      const value = requireStruct(record.value, schema, PURPOSE);
      const keyFields = fields.map((name) => {
        const found = fieldsOf(schema).find((each) => each.field === name);
        if (!found) throw new TransformDataError(`Field does not exist: ${name}`);
        return found;
      });
      const key = Object.fromEntries(
        keyFields.map((each) => [each.field, fieldValue(value, each, replaceNull)]),
      );
      const keySchema = {
        type: 'struct' as const,
        fields: keyFields.map((each) => fieldNamed(each.field, each)),
      };
      return withOperating(record, 'key', keySchema, key);
    };
  },
};
