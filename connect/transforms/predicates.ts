/**
 * The predicates of `org.apache.kafka.connect.transforms.predicates`, which decide per record
 * whether a transform with `transforms.<alias>.predicate` applies.
 */
import { javaPattern, TransformConfigError, type PredicatePlugin } from './transformation.js';

export const TOPIC_NAME_MATCHES: PredicatePlugin = {
  class: 'org.apache.kafka.connect.transforms.predicates.TopicNameMatches',
  keys: [
    {
      name: 'pattern',
      type: 'STRING',
      required: true,
      documentation: "A Java regular expression for matching against the name of a record's topic.",
    },
  ],
  configure(settings) {
    const text = settings.string('pattern') ?? '';
    if (text === '') {
      throw new TransformConfigError(
        'pattern',
        'Invalid value  for configuration pattern: String must be non-empty',
      );
    }
    const pattern = javaPattern('pattern', text);
    return (record) => pattern.test(record.topic);
  },
};

export const HAS_HEADER_KEY: PredicatePlugin = {
  class: 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
  keys: [{ name: 'name', type: 'STRING', required: true, documentation: 'The header name.' }],
  configure(settings) {
    const name = settings.string('name') ?? '';
    if (name === '') {
      throw new TransformConfigError(
        'name',
        'Invalid value  for configuration name: String must be non-empty',
      );
    }
    return (record) => record.headers.some((header) => header.key === name);
  },
};

export const RECORD_IS_TOMBSTONE: PredicatePlugin = {
  class: 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
  keys: [],
  configure() {
    return (record) => record.value === null || record.value === undefined;
  },
};
