/** `Filter`: drops every record it is applied to; with a predicate, the ones it matches (or, negated, does not). */
import type { TransformationPlugin } from './transformation.js';

export const FILTER: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.Filter',
  sides: 'record',
  keys: [],
  configure() {
    return () => null;
  },
};
