import { describe, expect, it } from 'vitest';
import type { StreamingLimits } from '../../workloads/runtime.js';
import type { StoredTopic } from '../../workloads/local/kafka/log-store.js';
import {
  ConfigSource,
  describeTopicConfigs,
  planTopicConfigs,
} from '../../workloads/local/kafka/topic-configs.js';
import { batchSizeProblem } from '../../workloads/local/kafka/topic-rules.js';

const starter: StreamingLimits = {
  brokers: 1,
  partitions: 50,
  storageBytes: 10 * 1024 ** 3,
  retentionMaxMs: 7 * 24 * 3600 * 1000,
};

const topic: StoredTopic = {
  name: 'orders',
  partitions: 1,
  replicas: 1,
  retentionMs: 3_600_000,
  cleanupPolicy: 'delete',
  createdAt: '2026-01-01T00:00:00.000Z',
  topicId: '5f2c8a3e-1b4d-4c6e-9a7b-0123456789ab',
  flushMessages: 1,
  flushMs: Number.POSITIVE_INFINITY,
};

describe('topic configs', () => {
  it("describes Kafka's full set: the topic's own as dynamic, the rest as defaults", () => {
    const configs = describeTopicConfigs(topic, starter, null);
    expect(configs.length).toBeGreaterThanOrEqual(30);
    expect(configs.find((entry) => entry.name === 'retention.ms')).toMatchObject({
      value: '3600000',
      source: ConfigSource.DYNAMIC_TOPIC_CONFIG,
    });
    expect(configs.find((entry) => entry.name === 'cleanup.policy')).toMatchObject({
      value: 'delete',
      source: ConfigSource.DEFAULT_CONFIG,
    });
    expect(describeTopicConfigs(topic, starter, ['flush.messages', 'flush.ms'])).toEqual([
      expect.objectContaining({
        name: 'flush.messages',
        value: '1',
        source: ConfigSource.STATIC_BROKER_CONFIG,
      }),
      expect.objectContaining({
        name: 'flush.ms',
        value: '9223372036854775807',
        source: ConfigSource.DEFAULT_CONFIG,
      }),
    ]);
    expect(describeTopicConfigs(topic, starter, ['max.message.bytes'])).toEqual([
      expect.objectContaining({ name: 'max.message.bytes', value: '1048588' }),
    ]);
  });

  it.each([
    ['retention within the tier', [['retention.ms', '86400000']], { retentionMs: 86_400_000 }],
    ['retention back to the default', [['retention.ms', null]], { retentionMs: 604_800_000 }],
    ['compaction', [['cleanup.policy', 'compact']], { cleanupPolicy: 'compact' }],
    ['a fixed config at its value', [['segment.bytes', '1073741824']], {}],
    ['retention over the tier', [['retention.ms', '999999999999']], { errorCode: 40 }],
    ['retention forever on a tier with a maximum', [['retention.ms', '-1']], { errorCode: 40 }],
    ['an unknown policy', [['cleanup.policy', 'shred']], { errorCode: 40 }],
    ['an unknown config', [['retention.hours', '1']], { errorCode: 40 }],
    ['a fixed config changed', [['segment.bytes', '1000']], { errorCode: 44 }],
    ['flush.messages raised', [['flush.messages', '1000']], { flushMessages: 1000 }],
    [
      "flush.messages at Kafka's default",
      [['flush.messages', '9223372036854775807']],
      { flushMessages: Number.POSITIVE_INFINITY },
    ],
    ['flush.messages back to the default', [['flush.messages', null]], { flushMessages: 1 }],
    ['flush.ms set', [['flush.ms', '0']], { flushMs: 0 }],
    ['flush.messages of 0', [['flush.messages', '0']], { errorCode: 40 }],
    ['flush.messages not a number', [['flush.messages', 'often']], { errorCode: 40 }],
    ['flush.messages past a long', [['flush.messages', '9223372036854775808']], { errorCode: 40 }],
    ['flush.ms negative', [['flush.ms', '-1']], { errorCode: 40 }],
  ] as const)('plans %s', (_case, settings, outcome) => {
    const planned = planTopicConfigs(
      settings.map(([name, value]) => ({ name, value })),
      starter,
    );
    expect(planned).toMatchObject(outcome);
  });

  it("describes a topic flushed as Kafka's default as dynamic", () => {
    const lazy = { ...topic, flushMessages: Number.POSITIVE_INFINITY, flushMs: 1000 };
    expect(describeTopicConfigs(lazy, starter, ['flush.messages', 'flush.ms'])).toEqual([
      expect.objectContaining({ value: '9223372036854775807', source: ConfigSource.DYNAMIC_TOPIC_CONFIG }),
      expect.objectContaining({ value: '1000', source: ConfigSource.DYNAMIC_TOPIC_CONFIG }),
    ]);
  });

  it('refuses a batch over max.message.bytes with MESSAGE_TOO_LARGE', () => {
    expect(batchSizeProblem(1_048_588)).toBeUndefined();
    expect(batchSizeProblem(1_048_589)).toMatchObject({ errorCode: 10 });
  });
});
