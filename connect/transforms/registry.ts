/** Every transform and predicate this runtime runs, by Apache Kafka's class names (and Debezium's one pipelines need). */
import { CAST } from './cast.js';
import { DROP_HEADERS } from './drop-headers.js';
import { EXTRACT_FIELD } from './extract-field.js';
import { EXTRACT_NEW_RECORD_STATE } from './extract-new-record-state.js';
import { FILTER } from './filter.js';
import { FLATTEN } from './flatten.js';
import { HEADER_FROM } from './header-from.js';
import { HOIST_FIELD } from './hoist-field.js';
import { INSERT_FIELD } from './insert-field.js';
import { INSERT_HEADER } from './insert-header.js';
import { MASK_FIELD } from './mask-field.js';
import { HAS_HEADER_KEY, RECORD_IS_TOMBSTONE, TOPIC_NAME_MATCHES } from './predicates.js';
import { REGEX_ROUTER } from './regex-router.js';
import { REPLACE_FIELD } from './replace-field.js';
import { TIMESTAMP_CONVERTER } from './timestamp-converter.js';
import { TIMESTAMP_ROUTER } from './timestamp-router.js';
import type { PredicatePlugin, Side, TransformationPlugin } from './transformation.js';
import { VALUE_TO_KEY } from './value-to-key.js';

export const TRANSFORMATIONS: readonly TransformationPlugin[] = [
  CAST,
  DROP_HEADERS,
  EXTRACT_FIELD,
  FILTER,
  FLATTEN,
  HEADER_FROM,
  HOIST_FIELD,
  INSERT_FIELD,
  INSERT_HEADER,
  MASK_FIELD,
  REGEX_ROUTER,
  REPLACE_FIELD,
  TIMESTAMP_CONVERTER,
  TIMESTAMP_ROUTER,
  VALUE_TO_KEY,
  EXTRACT_NEW_RECORD_STATE,
];

export const PREDICATES: readonly PredicatePlugin[] = [
  HAS_HEADER_KEY,
  RECORD_IS_TOMBSTONE,
  TOPIC_NAME_MATCHES,
];

/** Every class name a `transforms.<alias>.type` may hold: `X$Key` and `X$Value` where Kafka has both. */
export const TRANSFORMATION_CLASSES: readonly { class: string; plugin: TransformationPlugin; side: Side }[] =
  TRANSFORMATIONS.flatMap((plugin) =>
    plugin.sides === 'record'
      ? [{ class: plugin.class, plugin, side: 'value' as const }]
      : [
          { class: `${plugin.class}$Key`, plugin, side: 'key' as const },
          { class: `${plugin.class}$Value`, plugin, side: 'value' as const },
        ],
  );

export function transformationOf(className: string) {
  return TRANSFORMATION_CLASSES.find((entry) => entry.class === className);
}

export function predicateOf(className: string): PredicatePlugin | undefined {
  return PREDICATES.find((plugin) => plugin.class === className);
}
