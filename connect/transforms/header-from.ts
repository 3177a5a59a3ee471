/**
 * `HeaderFrom$Key` / `$Value`: fields of the key (or value) copied (`operation=copy`) or moved
 * (`move`, removed from the data) into headers, `fields` and `headers` pairing up in order.
 */
import type { ConnectHeader } from '../connect-record.js';
import {
  fieldsOf,
  fieldValue,
  nonEmptyList,
  operating,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  schemaOfField,
  structLike,
  TransformConfigError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

export const HEADER_FROM: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.HeaderFrom',
  sides: 'key-value',
  keys: [
    {
      name: 'fields',
      type: 'LIST',
      required: true,
      documentation: 'Field names in the record whose values are to be copied or moved to headers.',
    },
    {
      name: 'headers',
      type: 'LIST',
      required: true,
      documentation:
        'Header names, in the same order as the field names listed in the fields configuration property.',
    },
    {
      name: 'operation',
      type: 'STRING',
      required: true,
      allowed: ['move', 'copy'],
      documentation:
        'Either move if the fields are to be moved to the headers (removed from the key/value), or copy if the fields are to be copied to the headers (retained in the key/value).',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const fields = nonEmptyList(settings, 'fields');
    const headers = nonEmptyList(settings, 'headers');
    if (fields.length !== headers.length) {
      throw new TransformConfigError(
        'headers',
        "'fields' config must have the same number of elements as 'headers' config.",
      );
    }
    const operation = settings.string('operation');
    const move = operation === 'move';
    const replaceNull = settings.boolean('replace.null.with.default');
    const purpose = `header ${operation ?? ''}`;

    return (record) => {
      const { schema, value } = operating(record, side);
      const added: ConnectHeader[] = [];
      if (!schema) {
        const map = requireMap(value, purpose);
        const updated = { ...map };
        fields.forEach((name, index) => {
          if (move) delete updated[name];
          added.push({ key: headers[index]!, value: map[name] ?? null });
        });
        return { ...withOperating(record, side, undefined, updated), headers: [...record.headers, ...added] };
      }
      const struct = requireStruct(value, schema, purpose);
      fields.forEach((name, index) => {
        const field = fieldsOf(schema).find((each) => each.field === name);
        const header: ConnectHeader = {
          key: headers[index]!,
          value: field ? fieldValue(struct, field, replaceNull) : null,
        };
        if (field) header.schema = schemaOfField(field);
        added.push(header);
      });
      if (!move) return { ...record, headers: [...record.headers, ...added] };
      const kept = fieldsOf(schema).filter((each) => !fields.includes(each.field));
      const updated = Object.fromEntries(
        kept.map((each) => [each.field, fieldValue(struct, each, replaceNull)]),
      );
      return {
        ...withOperating(record, side, structLike(schema, kept), updated),
        headers: [...record.headers, ...added],
      };
    };
  },
};
