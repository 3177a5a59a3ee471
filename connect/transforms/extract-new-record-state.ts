/**
 * Debezium's `io.debezium.transforms.ExtractNewRecordState`, which pipelines from a change-capture
 * source into a sink put first: a change event's value becomes the row after the change, as a
 * table sink writes it. A delete is handled by `delete.tombstone.handling.mode`: `tombstone`
 * (default) and `delete-to-tombstone` leave a tombstone of the row's key (what a sink deletes by),
 * `rewrite` the row before with `__deleted: "true"` (others get `"false"`), `rewrite-with-tombstone`
 * that and tombstones kept, `drop` nothing. `add.fields` and `add.headers` copy envelope fields
 * (`op`, `ts_ms`) and source fields (`table`, `lsn`, `source.ts_ms`) as `__op`, `__table`,
 * `__source_ts_ms`.
 */
import type { ConnectField, ConnectSchema } from '../connect-record.js';
import {
  fieldNamed,
  fieldsOf,
  isPlainObject,
  operating,
  schemaOfField,
  structLike,
  withOperating,
  type TransformationPlugin,
  type TransformRecord,
} from './transformation.js';

const MODES = ['drop', 'tombstone', 'rewrite', 'rewrite-with-tombstone', 'delete-to-tombstone'] as const;
type Mode = (typeof MODES)[number];

/** Where an added field comes from: a field of the envelope or of its `source` block. */
interface Addition {
  name: string;
  path: [string] | [string, string];
}

function additionsOf(specs: string[], prefix: string): Addition[] {
  return specs.map((spec) => {
    const parts = spec.split('.');
    if (parts.length === 2) return { name: `${prefix}${parts[0]}_${parts[1]}`, path: [parts[0]!, parts[1]!] };
    return { name: `${prefix}${spec}`, path: spec === 'op' || spec === 'ts_ms' ? [spec] : ['source', spec] };
  });
}

function valueAt(envelope: Record<string, unknown>, path: Addition['path']): unknown {
  const first = envelope[path[0]];
  if (path.length === 1) return first ?? null;
  return isPlainObject(first) ? (first[path[1]] ?? null) : null;
}

function schemaAt(envelope: ConnectSchema, path: Addition['path']): ConnectSchema {
  let field = fieldsOf(envelope).find((each) => each.field === path[0]);
  if (field && path.length === 2) field = fieldsOf(field).find((each) => each.field === path[1]);
  return field ? { ...schemaOfField(field), optional: true } : { type: 'string', optional: true };
}

export const EXTRACT_NEW_RECORD_STATE: TransformationPlugin = {
  class: 'io.debezium.transforms.ExtractNewRecordState',
  sides: 'record',
  keys: [
    {
      name: 'delete.tombstone.handling.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'tombstone',
      allowed: MODES,
      documentation:
        'How to handle delete records and tombstones: drop, tombstone, rewrite, rewrite-with-tombstone or delete-to-tombstone.',
    },
    {
      name: 'add.fields',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation:
        'Fields of the change event (op, ts_ms) or of its source (table, lsn, source.ts_ms) added to the value.',
    },
    {
      name: 'add.fields.prefix',
      type: 'STRING',
      required: false,
      defaultValue: '__',
      documentation: 'The prefix of the added fields.',
    },
    {
      name: 'add.headers',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Fields of the change event or of its source added as headers.',
    },
    {
      name: 'add.headers.prefix',
      type: 'STRING',
      required: false,
      defaultValue: '__',
      documentation: 'The prefix of the added headers.',
    },
  ],
  configure(settings) {
    const mode = settings.string('delete.tombstone.handling.mode') as Mode;
    const fields = additionsOf(settings.list('add.fields'), settings.string('add.fields.prefix') ?? '__');
    const headers = additionsOf(settings.list('add.headers'), settings.string('add.headers.prefix') ?? '__');
    const rewrite = mode === 'rewrite' || mode === 'rewrite-with-tombstone';

    /** The row with the added fields (and `__deleted` when rewriting), its schema extended alike. */
    const extended = (
      record: TransformRecord,
      envelope: Record<string, unknown>,
      row: Record<string, unknown>,
      rowSchema: ConnectSchema | undefined,
      deleted: boolean,
    ): TransformRecord => {
      const out = { ...row };
      const added: ConnectField[] = [];
      for (const field of fields) {
        out[field.name] = valueAt(envelope, field.path);
        if (record.valueSchema) added.push(fieldNamed(field.name, schemaAt(record.valueSchema, field.path)));
      }
      if (rewrite) {
        out.__deleted = String(deleted);
        added.push({ field: '__deleted', type: 'string', optional: true });
      }
      const schema = rowSchema ? structLike(rowSchema, [...fieldsOf(rowSchema), ...added]) : undefined;
      return withOperating(record, 'value', schema, out);
    };

    return (record) => {
      const { value, schema } = operating(record, 'value');
      if (value === null || value === undefined) {
        return mode === 'drop' || mode === 'rewrite' || mode === 'delete-to-tombstone' ? null : record;
      }
      if (!isPlainObject(value) || typeof value.op !== 'string' || !('after' in value)) return record;
      const withHeaders: TransformRecord = {
        ...record,
        headers: [
          ...record.headers,
          ...headers.map((header) => ({ key: header.name, value: valueAt(value, header.path) })),
        ],
      };
      const rowSchemaOf = (name: 'before' | 'after') => {
        const field = schema && fieldsOf(schema).find((each) => each.field === name);
        return field ? schemaOfField(field) : undefined;
      };
      if (value.op !== 'd') {
        return extended(
          withHeaders,
          value,
          (value.after ?? {}) as Record<string, unknown>,
          rowSchemaOf('after'),
          false,
        );
      }
      if (mode === 'drop') return null;
      if (rewrite) {
        return extended(
          withHeaders,
          value,
          (value.before ?? {}) as Record<string, unknown>,
          rowSchemaOf('before'),
          true,
        );
      }
      return withOperating(withHeaders, 'value', undefined, null);
    };
  },
};
