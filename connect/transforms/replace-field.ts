/**
 * `ReplaceField$Key` / `$Value`: keeps (`include`) or drops (`exclude`, which wins) fields and
 * renames them (`renames`, `old:new` pairs). The names Kafka had before 2.6, `whitelist` and
 * `blacklist`, are still read, as connectors written for them still carry them.
 */
import {
  fieldNamed,
  fieldsOf,
  fieldValue,
  operating,
  REPLACE_NULL_WITH_DEFAULT,
  requireMap,
  requireStruct,
  structLike,
  TransformConfigError,
  withOperating,
  type TransformationPlugin,
  type TransformSettings,
} from './transformation.js';

const PURPOSE = 'field replacement';

function renamesOf(mappings: string[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const mapping of mappings) {
    const parts = mapping.split(':');
    if (parts.length !== 2) {
      throw new TransformConfigError(
        'renames',
        `Invalid value [${mappings.join(', ')}] for configuration renames: Invalid rename mapping: ${mapping}`,
      );
    }
    renames.set(parts[0]!, parts[1]!);
  }
  return renames;
}

/** A list under its current name, or its pre-2.6 name when only that one is set. */
function listWithLegacy(settings: TransformSettings, name: string, legacy: string): string[] {
  const current = settings.list(name);
  return current.length > 0 ? current : settings.list(legacy);
}

export const REPLACE_FIELD: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.ReplaceField',
  sides: 'key-value',
  keys: [
    {
      name: 'exclude',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Fields to exclude. This takes precedence over the fields to include.',
    },
    {
      name: 'include',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Fields to include. If specified, only these fields will be used.',
    },
    {
      name: 'renames',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Field rename mappings, colon-delimited pairs: foo:bar,abc:xyz.',
    },
    {
      name: 'blacklist',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Deprecated. Use exclude instead.',
    },
    {
      name: 'whitelist',
      type: 'LIST',
      required: false,
      defaultValue: '',
      documentation: 'Deprecated. Use include instead.',
    },
    REPLACE_NULL_WITH_DEFAULT,
  ],
  configure(settings, side) {
    const exclude = new Set(listWithLegacy(settings, 'exclude', 'blacklist'));
    const include = new Set(listWithLegacy(settings, 'include', 'whitelist'));
    const renames = renamesOf(settings.list('renames'));
    const replaceNull = settings.boolean('replace.null.with.default');
    const kept = (name: string) => !exclude.has(name) && (include.size === 0 || include.has(name));
    const renamed = (name: string) => renames.get(name) ?? name;

    return (record) => {
      const { schema, value } = operating(record, side);
      if (value === null || value === undefined) return record;
      if (!schema) {
        const map = requireMap(value, PURPOSE);
        const updated: Record<string, unknown> = {};
        for (const [name, each] of Object.entries(map)) if (kept(name)) updated[renamed(name)] = each;
        return withOperating(record, side, undefined, updated);
      }
      const struct = requireStruct(value, schema, PURPOSE);
      const fields = fieldsOf(schema).filter((each) => kept(each.field));
      const updated: Record<string, unknown> = {};
      for (const each of fields) updated[renamed(each.field)] = fieldValue(struct, each, replaceNull);
      const updatedSchema = structLike(
        schema,
        fields.map((each) => fieldNamed(renamed(each.field), each)),
      );
      return withOperating(record, side, updatedSchema, updated);
    };
  },
};
