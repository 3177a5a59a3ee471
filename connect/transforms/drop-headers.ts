/** `DropHeaders`: removes every header with one of the names in `headers`. */
import { nonEmptyList, type TransformationPlugin } from './transformation.js';

export const DROP_HEADERS: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.DropHeaders',
  sides: 'record',
  keys: [
    {
      name: 'headers',
      type: 'LIST',
      required: true,
      documentation: 'The name of the headers to be removed.',
    },
  ],
  configure(settings) {
    const dropped = new Set(nonEmptyList(settings, 'headers'));
    return (record) => ({ ...record, headers: record.headers.filter((header) => !dropped.has(header.key)) });
  },
};
