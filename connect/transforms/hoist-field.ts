/** `HoistField$Key` / `$Value`: the key (or value) wrapped in a struct (or map) of one field. */
import { fieldNamed, operating, withOperating, type TransformationPlugin } from './transformation.js';

export const HOIST_FIELD: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.HoistField',
  sides: 'key-value',
  keys: [
    {
      name: 'field',
      type: 'STRING',
      required: true,
      documentation: 'Field name for the single field that will be created in the resulting Struct or Map.',
    },
  ],
  configure(settings, side) {
    const name = settings.string('field') ?? '';
    return (record) => {
      const { schema, value } = operating(record, side);
      const hoisted = { [name]: value ?? null };
      return withOperating(
        record,
        side,
        schema ? { type: 'struct', fields: [fieldNamed(name, schema)] } : undefined,
        hoisted,
      );
    };
  },
};
