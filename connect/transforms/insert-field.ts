/**
 * `InsertField$Key` / `$Value`: fields from the record's topic, partition, offset (a sink's),
 * timestamp, or a static value. A name ending in `!` makes a required field of the schema, `?`
 * (the default) an optional one.
 */
import type { ConnectField, ConnectSchema } from '../connect-record.js';
import {
  fieldsOf,
  fieldValue,
  operating,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  structLike,
  TIMESTAMP_LOGICAL,
  TransformConfigError,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
  type TransformKey,
  type TransformRecord,
} from './transformation.js';

const OPTIONALITY = 'Suffix with ! to make this a required field, or ? to keep it optional (the default).';
const PURPOSE = 'field insertion';

const fieldKey = (name: string, documentation: string): TransformKey => ({
  name,
  type: 'STRING',
  required: false,
  documentation: `${documentation} ${OPTIONALITY}`,
});

interface Insertion {
  name: string;
  optional: boolean;
}

function insertionOf(spec: string | undefined): Insertion | undefined {
  if (spec === undefined) return undefined;
  if (spec.endsWith('?')) return { name: spec.slice(0, -1), optional: true };
  if (spec.endsWith('!')) return { name: spec.slice(0, -1), optional: false };
  return { name: spec, optional: true };
}

function field(insertion: Insertion, schema: ConnectSchema): ConnectField {
  return { ...schema, field: insertion.name, ...(insertion.optional ? { optional: true } : {}) };
}

export const INSERT_FIELD: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.InsertField',
  sides: 'key-value',
  keys: [
    fieldKey('topic.field', 'Field name for Kafka topic.'),
    fieldKey('partition.field', 'Field name for Kafka partition.'),
    fieldKey('offset.field', 'Field name for Kafka offset - only applicable to sink connectors.'),
    fieldKey('timestamp.field', 'Field name for record timestamp.'),
    fieldKey('static.field', 'Field name for static data field.'),
    {
      name: 'static.value',
      type: 'STRING',
      required: false,
      documentation: 'Static field value, if field name configured.',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const topic = insertionOf(settings.string('topic.field'));
    const partition = insertionOf(settings.string('partition.field'));
    const offset = insertionOf(settings.string('offset.field'));
    const timestamp = insertionOf(settings.string('timestamp.field'));
    const staticField = insertionOf(settings.string('static.field'));
    const staticValue = settings.string('static.value');
    const replaceNull = settings.boolean('replace.null.with.default');
    if (!topic && !partition && !offset && !timestamp && !staticField) {
      throw new TransformConfigError(undefined, 'No field insertion configured');
    }
    if (staticField && staticValue === undefined) {
      throw new TransformConfigError(
        'static.value',
        `Invalid value null for configuration static.value: No value specified for static field: ${staticField.name}`,
      );
    }

    const offsetOf = (record: TransformRecord): number => {
      if (record.offset === undefined) {
        throw new TransformDataError(
          `Only SinkRecord supported for [${PURPOSE}], found: org.apache.kafka.connect.source.SourceRecord`,
        );
      }
      return record.offset;
    };

    /** The inserted fields, in Kafka's order; the timestamp as a `Date` when the data has a schema. */
    const insertions = (record: TransformRecord, typed: boolean): [string, unknown][] => {
      const out: [string, unknown][] = [];
      if (topic) out.push([topic.name, record.topic]);
      if (partition && record.partition !== null) out.push([partition.name, record.partition]);
      if (offset) out.push([offset.name, offsetOf(record)]);
      if (timestamp && record.timestamp !== null) {
        out.push([timestamp.name, typed ? new Date(record.timestamp) : record.timestamp]);
      }
      if (staticField && staticValue !== undefined) out.push([staticField.name, staticValue]);
      return out;
    };

    const updatedSchema = (schema: ConnectSchema): ConnectSchema =>
      structLike(schema, [
        ...fieldsOf(schema),
        ...(topic ? [field(topic, { type: 'string' })] : []),
        ...(partition ? [field(partition, { type: 'int32' })] : []),
        ...(offset ? [field(offset, { type: 'int64' })] : []),
        ...(timestamp ? [field(timestamp, { type: 'int64', name: TIMESTAMP_LOGICAL, version: 1 })] : []),
        ...(staticField ? [field(staticField, { type: 'string' })] : []),
      ]);

    return (record) => {
      const { schema, value } = operating(record, side);
      if (value === null || value === undefined) return record;
      if (!schema) {
        const map = requireMap(value, PURPOSE);
        return withOperating(record, side, undefined, {
          ...map,
          ...Object.fromEntries(insertions(record, false)),
        });
      }
      const struct = requireStruct(value, schema, PURPOSE);
      const updated: Record<string, unknown> = {};
      for (const each of fieldsOf(schema)) updated[each.field] = fieldValue(struct, each, replaceNull);
      for (const [name, inserted] of insertions(record, true)) updated[name] = inserted;
      return withOperating(record, side, updatedSchema(schema), updated);
    };
  },
};
