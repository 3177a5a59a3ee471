/**
 * `TimestampConverter$Key` / `$Value`: a timestamp field (or the whole key or value) converted
 * between a formatted string, Unix time (`unix.precision`), and Connect's Date, Time and
 * Timestamp, all in UTC. Without a schema the source kind is read from the value: a string is
 * parsed with `format`, an integer is Unix time, a `Date` a Timestamp.
 */
import type { ConnectSchema } from '../connect-record.js';
import { DatePatternError, simpleDateFormat, type DatePattern } from './simple-date-format.js';
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
  structLike,
  TIME_LOGICAL,
  TIMESTAMP_LOGICAL,
  TransformConfigError,
  TransformDataError,
  withOperating,
  type TransformationPlugin,
} from './transformation.js';

const PURPOSE = 'converting timestamp formats';
const TYPES = ['string', 'unix', 'Date', 'Time', 'Timestamp'] as const;
type TimestampType = (typeof TYPES)[number];
const PRECISIONS = ['nanoseconds', 'microseconds', 'milliseconds', 'seconds'] as const;
const DAY_MS = 86_400_000;

/** The schema a timestamp type has. */
function schemaOf(type: TimestampType, optional: boolean): ConnectSchema {
  const base: ConnectSchema =
    type === 'string'
      ? { type: 'string' }
      : type === 'unix'
        ? { type: 'int64' }
        : type === 'Date'
          ? { type: 'int32', name: DATE_LOGICAL, version: 1 }
          : type === 'Time'
            ? { type: 'int32', name: TIME_LOGICAL, version: 1 }
            : { type: 'int64', name: TIMESTAMP_LOGICAL, version: 1 };
  return optional ? { ...base, optional: true } : base;
}

function typeOfSchema(schema: ConnectSchema): TimestampType {
  if (schema.name === TIMESTAMP_LOGICAL) return 'Timestamp';
  if (schema.name === DATE_LOGICAL) return 'Date';
  if (schema.name === TIME_LOGICAL) return 'Time';
  if (schema.type === 'string') return 'string';
  if (schema.type === 'int64') return 'unix';
  throw new TransformDataError(
    `Schema ${JSON.stringify(schema)} does not correspond to a known timestamp type format`,
  );
}

function inferredType(value: unknown): TimestampType {
  if (value instanceof Date) return 'Timestamp';
  if ((typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint') return 'unix';
  if (typeof value === 'string') return 'string';
  throw new TransformDataError(
    `TimestampConverter does not support class ${javaClassOf(value)} objects as timestamps`,
  );
}

export const TIMESTAMP_CONVERTER: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.TimestampConverter',
  sides: 'key-value',
  keys: [
    {
      name: 'field',
      type: 'STRING',
      required: false,
      defaultValue: '',
      documentation: 'The field containing the timestamp, or empty if the entire value is a timestamp',
    },
    {
      name: 'target.type',
      type: 'STRING',
      required: true,
      allowed: TYPES,
      documentation: 'The desired timestamp representation: string, unix, Date, Time, or Timestamp',
    },
    {
      name: 'format',
      type: 'STRING',
      required: false,
      defaultValue: '',
      documentation:
        'A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string or used to parse the input if the input is a string.',
    },
    {
      name: 'unix.precision',
      type: 'STRING',
      required: false,
      defaultValue: 'milliseconds',
      allowed: PRECISIONS,
      documentation:
        'The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. Used to generate the output when type=unix or used to parse the input if the input is a Long.',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const field = settings.string('field') ?? '';
    const target = settings.string('target.type') as TimestampType;
    const formatPattern = settings.string('format') ?? '';
    const precision = settings.string('unix.precision') as (typeof PRECISIONS)[number];
    const replaceNull = settings.boolean('replace.null.with.default');
    if (target === 'string' && formatPattern.trim() === '') {
      throw new TransformConfigError(
        'format',
        'TimestampConverter requires format option to be specified when using string timestamps',
      );
    }
    let pattern: DatePattern | undefined;
    if (formatPattern.trim() !== '') {
      try {
        pattern = simpleDateFormat(formatPattern);
      } catch (error) {
        throw new TransformConfigError(
          'format',
          `TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: ${formatPattern} (${(error as Error).message})`,
        );
      }
    }
    const unitMs = { seconds: 1000, milliseconds: 1, microseconds: 0.001, nanoseconds: 0.000001 }[precision];

    const toMs = (value: unknown, type: TimestampType): number => {
      switch (type) {
        case 'string':
          if (typeof value !== 'string') {
            throw new TransformDataError(
              `Expected string timestamp to be a String, but found class ${javaClassOf(value)}`,
            );
          }
          try {
            return pattern!.parse(value);
          } catch (error) {
            if (!(error instanceof DatePatternError) && pattern) throw error;
            throw new TransformDataError(
              `Could not parse timestamp: value (${value}) does not match pattern (${formatPattern})`,
            );
          }
        case 'unix':
          if (typeof value !== 'number' && typeof value !== 'bigint') {
            throw new TransformDataError(
              `Expected Unix timestamp to be a Long, but found class ${javaClassOf(value)}`,
            );
          }
          return Math.trunc(Number(value) * unitMs);
        default:
          if (value instanceof Date) return value.getTime();
          if (typeof value === 'number') return value;
          throw new TransformDataError(
            `Expected ${type} to be a java.util.Date, but found class ${javaClassOf(value)}`,
          );
      }
    };

    const fromMs = (ms: number): unknown => {
      switch (target) {
        case 'string':
          return pattern!.format(ms);
        case 'unix':
          return Math.trunc(ms / unitMs);
        case 'Date':
          return new Date(Math.floor(ms / DAY_MS) * DAY_MS);
        case 'Time':
          return new Date(((ms % DAY_MS) + DAY_MS) % DAY_MS);
        case 'Timestamp':
          return new Date(ms);
      }
    };

    const convert = (value: unknown, type: TimestampType | undefined): unknown =>
      value === null || value === undefined ? null : fromMs(toMs(value, type ?? inferredType(value)));

    return (record) => {
      const { schema, value } = operating(record, side);
      if (!schema) {
        if (value === null || value === undefined || field === '') {
          return withOperating(record, side, undefined, convert(value, undefined));
        }
        const map = requireMap(value, PURPOSE);
        return withOperating(record, side, undefined, { ...map, [field]: convert(map[field], undefined) });
      }
      if (field === '') {
        return withOperating(
          record,
          side,
          schemaOf(target, schema.optional === true),
          convert(value, typeOfSchema(schema)),
        );
      }
      const fields = fieldsOf(schema).map((each) =>
        each.field === field ? fieldNamed(each.field, schemaOf(target, each.optional === true)) : each,
      );
      const updatedSchema = { ...structLike(schema, fields), ...(schema.optional ? { optional: true } : {}) };
      if (value === null || value === undefined) return withOperating(record, side, updatedSchema, null);
      const struct = requireStruct(value, schema, PURPOSE);
      const updated: Record<string, unknown> = {};
      for (const each of fieldsOf(schema)) {
        const original = fieldValue(struct, each, replaceNull);
        updated[each.field] = each.field === field ? convert(original, typeOfSchema(each)) : original;
      }
      return withOperating(record, side, updatedSchema, updated);
    };
  },
};
