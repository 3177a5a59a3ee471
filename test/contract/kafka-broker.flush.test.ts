import { Admin as PlatformaticAdmin } from '@platformatic/kafka';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const LONG_MAX = '9223372036854775807';
const STATIC_BROKER_CONFIG = 4;
const DYNAMIC_TOPIC_CONFIG = 1;

const cluster = streamingCluster('esc_flush');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let admin: Admin;

async function flushConfigs(topic: string): Promise<Record<string, { value: string; source: number }>> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['flush.messages', 'flush.ms'] },
    ],
  });
  return Object.fromEntries(
    described.resources[0]!.configEntries.map((entry) => [
      entry.configName,
      { value: entry.configValue, source: Number(entry.configSource) },
    ]),
  );
}

/** Kafka's flush.messages and flush.ms, set per topic over the protocol by real clients. */
describe('the embedded broker: flush.messages and flush.ms', () => {
  beforeAll(async () => {
    fixture = startStreaming({ first: 29260, last: 29279 });
    observed = await fixture.streaming.ensureCluster(cluster);
    await fixture.streaming.ensureUser(cluster, streamingUser('flo', 'flo-secret'));
    admin = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'flo', 'flo-secret').admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await fixture?.cleanup();
  });

  it('makes a topic durable before answering unless told otherwise, and says so', async () => {
    await admin.createTopics({ topics: [{ topic: 'durable', numPartitions: 1 }] });
    expect(await flushConfigs('durable')).toEqual({
      'flush.messages': { value: '1', source: STATIC_BROKER_CONFIG },
      'flush.ms': { value: LONG_MAX, source: 5 },
    });
  });

  it("creates a topic with Kafka's default flush, and produces and reads it", async () => {
    await admin.createTopics({
      topics: [
        {
          topic: 'os-flushed',
          numPartitions: 1,
          configEntries: [{ name: 'flush.messages', value: LONG_MAX }],
        },
      ],
    });
    expect((await flushConfigs('os-flushed'))['flush.messages']).toEqual({
      value: LONG_MAX,
      source: DYNAMIC_TOPIC_CONFIG,
    });
    const client = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'flo', 'flo-secret');
    const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let index = 0; index < 20; index++)
      await producer.send({ topic: 'os-flushed', acks: -1, messages: [{ value: `record-${index}` }] });
    await producer.disconnect();
    const offsets = await admin.fetchTopicOffsets('os-flushed');
    expect(offsets[0]).toMatchObject({ high: '20' });
  });

  it('alters both with AlterConfigs and resets them with IncrementalAlterConfigs', async () => {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: 'durable',
          configEntries: [
            { name: 'flush.messages', value: '1000' },
            { name: 'flush.ms', value: '250' },
          ],
        },
      ],
    });
    expect(await flushConfigs('durable')).toEqual({
      'flush.messages': { value: '1000', source: DYNAMIC_TOPIC_CONFIG },
      'flush.ms': { value: '250', source: DYNAMIC_TOPIC_CONFIG },
    });
    const platformatic = new PlatformaticAdmin({
      clientId: 'flush-test',
      bootstrapBrokers: observed.bootstrapServers,
      tls: { ca: observed.caCertificate },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'flo', password: 'flo-secret' },
      retries: 1,
    });
    try {
      await platformatic.incrementalAlterConfigs({
        resources: [
          {
            resourceType: 2,
            resourceName: 'durable',
            configs: [
              { name: 'flush.messages', configOperation: 1 },
              { name: 'flush.ms', configOperation: 0, value: '0' },
            ],
          },
        ],
      });
    } finally {
      await platformatic.close();
    }
    expect(await flushConfigs('durable')).toEqual({
      'flush.messages': { value: '1', source: STATIC_BROKER_CONFIG },
      'flush.ms': { value: '0', source: DYNAMIC_TOPIC_CONFIG },
    });
  });

  it.each([
    ['flush.messages', '0'],
    ['flush.messages', 'often'],
    ['flush.messages', '9223372036854775808'],
    ['flush.ms', '-1'],
  ])('refuses %s=%s with INVALID_CONFIG, at creation and on alteration', async (name, value) => {
    await expect(
      admin.createTopics({ topics: [{ topic: 'refused', configEntries: [{ name, value }] }] }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
    await expect(
      admin.alterConfigs({
        validateOnly: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: 'os-flushed', configEntries: [{ name, value }] },
        ],
      }),
    ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });
    expect((await flushConfigs('os-flushed'))['flush.messages']!.value).toBe(LONG_MAX);
  });
});
