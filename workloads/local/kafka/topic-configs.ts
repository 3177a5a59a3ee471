import { kafkaLongOf, kafkaLongText, type StreamingLimits } from '../../runtime.js';
import { ErrorCode } from './errors.js';
import { DURABLE, type FlushPolicy } from './flush-policy.js';
import type { StoredTopic } from './log-store.js';
import {
  cleanupPolicyOf,
  defaultRetentionMs,
  MAX_MESSAGE_BYTES,
  retentionProblem,
  type Refusal,
} from './topic-rules.js';

/** Kafka's ConfigSource codes. */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;

/** Kafka's ConfigType codes. */
const Type = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, DOUBLE: 6, LIST: 7 } as const;

/** A topic config as DescribeConfigs (and CreateTopics v5+) answers it. */
export interface TopicConfigEntry {
  name: string;
  value: string;
  source: number;
  readOnly: boolean;
  type: number;
  documentation: string;
}

interface ConfigDefinition {
  name: string;
  type: number;
  documentation: string;
  /** The value of a topic; for a config the platform does not keep, Kafka's default. */
  valueOf(topic: StoredTopic, limits: StreamingLimits): string;
  defaultOf(limits: StreamingLimits): string;
  /** Where the default comes from: Kafka's own, unless the platform's brokers set another. */
  defaultSource?: number;
  /** Set only for the configs the platform keeps per topic: checks and applies a new value. */
  change?: (value: string | null, limits: StreamingLimits) => TopicChange | Refusal;
}

/** What an alteration changes on the stored topic. */
export type TopicChange = Partial<
  Pick<StoredTopic, 'retentionMs' | 'cleanupPolicy' | 'flushMessages' | 'flushMs'>
>;

function fixed(name: string, type: number, value: string, documentation: string): ConfigDefinition {
  return { name, type, documentation, valueOf: () => value, defaultOf: () => value };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `flush.messages` or `flush.ms`, kept per topic: Kafka's meaning, at least `least`; back to the
 * platform's default (every append durable before it is answered) when reset.
 */
function flushConfig(
  name: string,
  key: keyof FlushPolicy,
  least: number,
  documentation: string,
  defaultSource?: number,
): ConfigDefinition {
  return {
    name,
    type: Type.LONG,
    documentation,
    valueOf: (topic) => kafkaLongText(topic[key]),
    defaultOf: () => kafkaLongText(DURABLE[key]),
    ...(defaultSource === undefined ? {} : { defaultSource }),
    change(value) {
      const parsed = value === null ? DURABLE[key] : kafkaLongOf(value);
      if (parsed === undefined || parsed < least)
        return {
          errorCode: ErrorCode.INVALID_CONFIG,
          message: `Invalid value ${value} for configuration ${name}: Value must be a long of at least ${least}`,
        };
      return key === 'flushMessages' ? { flushMessages: parsed } : { flushMs: parsed };
    },
  };
}

/**
 * Every topic config of Kafka 3.9, in its order. `cleanup.policy`, `flush.messages`, `flush.ms`
 * and `retention.ms` are the topic's own; the others hold Kafka's defaults, which this broker
 * follows and which cannot be changed per topic.
 */
const DEFINITIONS: readonly ConfigDefinition[] = [
  {
    name: 'cleanup.policy',
    type: Type.LIST,
    documentation: 'The retention policy of log segments: delete or compact.',
    valueOf: (topic) => topic.cleanupPolicy,
    defaultOf: () => 'delete',
    change(value) {
      const policy = cleanupPolicyOf(value);
      if (!policy)
        return {
          errorCode: ErrorCode.INVALID_CONFIG,
          message: `Invalid value ${value} for configuration cleanup.policy: String must be one of: compact, delete`,
        };
      return { cleanupPolicy: policy };
    },
  },
  fixed('compression.gzip.level', Type.INT, '-1', 'The compression level of gzip.'),
  fixed('compression.lz4.level', Type.INT, '9', 'The compression level of lz4.'),
  fixed('compression.type', Type.STRING, 'producer', 'Batches are kept as the producer compressed them.'),
  fixed('compression.zstd.level', Type.INT, '3', 'The compression level of zstd.'),
  fixed('delete.retention.ms', Type.LONG, String(DAY_MS), 'How long delete tombstones are retained.'),
  fixed('file.delete.delay.ms', Type.LONG, '60000', 'The time to wait before deleting a file.'),
  flushConfig(
    'flush.messages',
    'flushMessages',
    1,
    'Messages a partition may hold before they are fsynced. The brokers set 1: every append is ' +
      'durable before it is answered. Above 1 an append is answered once written to the operating ' +
      'system (it survives the broker process being killed, not a power loss), as in Kafka.',
    ConfigSource.STATIC_BROKER_CONFIG,
  ),
  flushConfig(
    'flush.ms',
    'flushMs',
    0,
    'How long the oldest message not yet fsynced may wait (ms); 0: every append is durable before ' +
      'it is answered. Applies to a topic whose flush.messages is above 1.',
  ),
  fixed('follower.replication.throttled.replicas', Type.LIST, '', 'Replicas throttled on the follower side.'),
  fixed('index.interval.bytes', Type.INT, '4096', 'How often an offset index entry is added.'),
  fixed('leader.replication.throttled.replicas', Type.LIST, '', 'Replicas throttled on the leader side.'),
  fixed('local.retention.bytes', Type.LONG, '-2', 'Local retention in bytes (tiered storage is not used).'),
  fixed('local.retention.ms', Type.LONG, '-2', 'Local retention in time (tiered storage is not used).'),
  fixed('max.compaction.lag.ms', Type.LONG, '9223372036854775807', 'The longest a record stays uncompacted.'),
  fixed(
    'max.message.bytes',
    Type.INT,
    String(MAX_MESSAGE_BYTES),
    'The largest record batch size allowed; a larger one is refused with MESSAGE_TOO_LARGE.',
  ),
  fixed('message.downconversion.enable', Type.BOOLEAN, 'true', 'Down-conversion for older consumers.'),
  fixed('message.format.version', Type.STRING, '3.0-IV1', 'The message format version.'),
  fixed('message.timestamp.after.max.ms', Type.LONG, '9223372036854775807', 'Allowed future timestamps.'),
  fixed('message.timestamp.before.max.ms', Type.LONG, '9223372036854775807', 'Allowed past timestamps.'),
  fixed('message.timestamp.difference.max.ms', Type.LONG, '9223372036854775807', 'Allowed timestamp skew.'),
  fixed('message.timestamp.type', Type.STRING, 'CreateTime', 'Records keep the producer timestamp.'),
  fixed('min.cleanable.dirty.ratio', Type.DOUBLE, '0.5', 'The dirty ratio at which compaction runs.'),
  fixed('min.compaction.lag.ms', Type.LONG, '0', 'The least time a record stays uncompacted.'),
  fixed('min.insync.replicas', Type.INT, '1', 'The replicas that must acknowledge a write with acks=all.'),
  fixed('preallocate', Type.BOOLEAN, 'false', 'Whether segment files are preallocated.'),
  fixed('remote.storage.enable', Type.BOOLEAN, 'false', 'Tiered storage is not used.'),
  fixed('retention.bytes', Type.LONG, '-1', 'The storage limit of the tier applies instead.'),
  {
    name: 'retention.ms',
    type: Type.LONG,
    documentation: 'How long records are kept before they are deleted; -1 for no limit.',
    valueOf: (topic) => String(topic.retentionMs),
    defaultOf: (limits) => String(defaultRetentionMs(limits)),
    change(value, limits) {
      const retentionMs = value === null ? defaultRetentionMs(limits) : Number(value);
      return retentionProblem(retentionMs, limits) ?? { retentionMs };
    },
  },
  fixed('segment.bytes', Type.INT, '1073741824', 'The segment file size.'),
  fixed('segment.index.bytes', Type.INT, '10485760', 'The offset index size.'),
  fixed('segment.jitter.ms', Type.LONG, '0', 'The jitter of segment rolls.'),
  fixed('segment.ms', Type.LONG, String(7 * DAY_MS), 'How often a segment is rolled.'),
  fixed('unclean.leader.election.enable', Type.BOOLEAN, 'false', 'Replicas out of sync never lead.'),
];

const BY_NAME = new Map(DEFINITIONS.map((definition) => [definition.name, definition]));

/** The topic's configs, every one when `names` is null, in Kafka's order. */
export function describeTopicConfigs(
  topic: StoredTopic,
  limits: StreamingLimits,
  names: readonly string[] | null,
): TopicConfigEntry[] {
  return DEFINITIONS.filter((definition) => names === null || names.includes(definition.name)).map(
    (definition) => {
      const value = definition.valueOf(topic, limits);
      return {
        name: definition.name,
        value,
        source:
          definition.change && value !== definition.defaultOf(limits)
            ? ConfigSource.DYNAMIC_TOPIC_CONFIG
            : (definition.defaultSource ?? ConfigSource.DEFAULT_CONFIG),
        readOnly: false,
        type: definition.type,
        documentation: definition.documentation,
      };
    },
  );
}

/**
 * What setting `name` to `value` (null: back to the default) changes, or why it is refused: an
 * unknown name or a bad value is INVALID_CONFIG; a Kafka config the platform fixes for every
 * topic is POLICY_VIOLATION unless set to the value it has.
 */
export function topicConfigChange(
  name: string,
  value: string | null,
  limits: StreamingLimits,
): TopicChange | Refusal {
  const definition = BY_NAME.get(name);
  if (!definition)
    return { errorCode: ErrorCode.INVALID_CONFIG, message: `Unknown topic config name: ${name}` };
  if (definition.change) return definition.change(value, limits);
  if (value === null || value === definition.defaultOf(limits)) return {};
  return {
    errorCode: ErrorCode.POLICY_VIOLATION,
    message: `${name} is fixed at ${definition.defaultOf(limits)} on this platform`,
  };
}

export function isRefusal(outcome: TopicChange | Refusal): outcome is Refusal {
  return 'errorCode' in outcome;
}

/**
 * The change that sets each of `settings` (null: back to the default), or the first refusal;
 * nothing is applied until every setting is accepted.
 */
export function planTopicConfigs(
  settings: readonly { name: string; value: string | null }[],
  limits: StreamingLimits,
): TopicChange | Refusal {
  let change: TopicChange = {};
  for (const setting of settings) {
    const outcome = topicConfigChange(setting.name, setting.value, limits);
    if (isRefusal(outcome)) return outcome;
    change = { ...change, ...outcome };
  }
  return change;
}

/** The configs CreateTopics takes besides `cleanup.policy` and `retention.ms`. */
export const FLUSH_CONFIGS: readonly string[] = ['flush.messages', 'flush.ms'];

/** The names of the configs the platform keeps per topic (AlterConfigs resets those not given). */
export const KEPT_TOPIC_CONFIGS: readonly string[] = DEFINITIONS.filter(
  (definition) => definition.change,
).map((definition) => definition.name);
