import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kafka, Consumer } from 'kafkajs';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import { eventually } from '../fixtures/eventually.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const cluster = streamingCluster('esc_kafkajs');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let kafka: Kafka;

beforeAll(async () => {
  fixture = startStreaming({ first: 29100, last: 29119 });
  observed = await fixture.streaming.ensureCluster(cluster);
  await fixture.streaming.ensureUser(cluster, streamingUser('alice', 'alice-secret', 'orders', 'shop*'));
  await fixture.streaming.ensureUser(cluster, {
    name: 'reader',
    credential: streamingUser('reader', 'reader-secret').credential,
    consumerGroup: 'reporting',
    acls: [
      {
        resourceType: 'topic',
        patternType: 'literal',
        name: 'orders',
        operations: ['read'],
        permission: 'allow',
      },
      // DESCRIBE lets FindCoordinator answer; joining still needs READ, which only `reporting` has.
      {
        resourceType: 'group',
        patternType: 'literal',
        name: 'audit',
        operations: ['describe'],
        permission: 'allow',
      },
    ],
  });
  kafka = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'alice', 'alice-secret');
});

afterAll(async () => {
  await fixture?.cleanup();
});

async function consumeCount(consumer: Consumer, topic: string, expected: number): Promise<string[]> {
  const values: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length === expected) resolve();
      },
    });
  });
  return values;
}

describe('the embedded broker with kafkajs over SASL_SSL and SCRAM-SHA-512', () => {
  it('produces 1,000 records with acks=-1 and consumes them in a group, committing', async () => {
    await fixture.streaming.ensureTopic(cluster, {
      name: 'orders',
      partitions: 3,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
    const producer = kafka.producer();
    await producer.connect();
    for (let batch = 0; batch < 10; batch++) {
      await producer.send({
        topic: 'orders',
        acks: -1,
        messages: Array.from({ length: 100 }, (_, i) => ({
          key: `k${i}`,
          value: `order-${batch * 100 + i}`,
        })),
      });
    }
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'shop-a' });
    await consumer.connect();
    const values = await consumeCount(consumer, 'orders', 1000);
    expect(new Set(values).size).toBe(1000);
    await eventually(async () =>
      expect((await fixture.streaming.groupLag(cluster, 'shop-a'))?.totalLag).toBe(0),
    );
    await consumer.disconnect();
    const lag = await fixture.streaming.groupLag(cluster, 'shop-a');
    expect(lag).toMatchObject({ groupId: 'shop-a', totalLag: 0, status: 'OK', timeLagSeconds: 0 });
    expect(lag!.partitions.reduce((sum, entry) => sum + entry.committedOffset, 0)).toBe(1000);
  });

  it('shows the lag of N records produced after the group caught up', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: 'orders',
      acks: -1,
      messages: Array.from({ length: 25 }, (_, i) => ({ value: `late-${i}` })),
    });
    await producer.disconnect();
    const lag = await fixture.streaming.groupLag(cluster, 'shop-a');
    expect(lag?.totalLag).toBe(25);
    expect(
      lag?.partitions.map((entry) => entry.logEndOffset - entry.committedOffset).reduce((a, b) => a + b),
    ).toBe(25);
  });

  it('lets two consumers in one group split four partitions', async () => {
    await fixture.streaming.ensureTopic(cluster, {
      name: 'orders-split',
      partitions: 4,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
    const assigned = new Map<string, number[]>();
    const consumers = [
      kafka.consumer({ groupId: 'shop-split', heartbeatInterval: 200 }),
      kafka.consumer({ groupId: 'shop-split', heartbeatInterval: 200 }),
    ];
    for (const [index, consumer] of consumers.entries()) {
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        assigned.set(String(index), event.payload.memberAssignment['orders-split'] ?? []);
      });
      await consumer.connect();
      await consumer.subscribe({ topic: 'orders-split', fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
    }
    await eventually(() => {
      const all = [...assigned.values()];
      expect(all).toHaveLength(2);
      expect(all.every((partitions) => partitions.length === 2)).toBe(true);
      expect(all.flat().sort()).toEqual([0, 1, 2, 3]);
    }, 20_000);
    const groups = await fixture.streaming.listGroups(cluster);
    const split = groups.find((group) => group.groupId === 'shop-split');
    expect(split?.members).toHaveLength(2);
    await Promise.all(consumers.map((consumer) => consumer.disconnect()));
  }, 40_000);

  it('answers a wrong password with error 58 and a message', async () => {
    const wrong = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'alice', 'not-the-password');
    const admin = wrong.admin();
    const error = await admin.connect().then(
      () => undefined,
      (caught: unknown) => caught as Error & { type?: string },
    );
    expect(error?.name).toBe('KafkaJSSASLAuthenticationError');
    expect(error?.message).toMatch(/SASL_AUTHENTICATION_FAILED|Authentication failed/);
    expect(error?.message).toContain('invalid credentials');
  });

  it('refuses a produce without WRITE with TOPIC_AUTHORIZATION_FAILED', async () => {
    const reader = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'reader', 'reader-secret');
    const producer = reader.producer({ retry: { retries: 0 } });
    await producer.connect();
    const error = await producer
      .send({ topic: 'orders', acks: -1, messages: [{ value: 'x' }] })
      .catch((caught: Error & { type?: string }) => caught);
    await producer.disconnect();
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).toContain('TOPIC_AUTHORIZATION_FAILED');
  });

  it('refuses a group outside the user\u2019s consumer group with GROUP_AUTHORIZATION_FAILED', async () => {
    const reader = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'reader', 'reader-secret');
    const consumer = reader.consumer({ groupId: 'audit', retry: { retries: 0 } });
    const crashed = new Promise<{ type?: string }>((resolve) => {
      consumer.on(consumer.events.CRASH, (event) => resolve(event.payload.error as { type?: string }));
    });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    expect((await crashed).type).toBe('GROUP_AUTHORIZATION_FAILED');
    await consumer.disconnect();
  });

  it('hides from Metadata the topics the user may not describe', async () => {
    await fixture.streaming.ensureTopic(cluster, {
      name: 'payroll',
      partitions: 1,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
    const admin = kafka.admin();
    await admin.connect();
    const topics = await admin.listTopics();
    await admin.disconnect();
    expect(topics).toContain('orders');
    expect(topics).not.toContain('payroll');
    expect((await fixture.streaming.listTopics(cluster)).map((topic) => topic.name)).toContain('payroll');
  });

  it('creates topics over the protocol that the runtime lists, and refuses unknown topics', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders-made-by-client', numPartitions: 2 }] });
    const bad = await admin
      .createTopics({ topics: [{ topic: 'orders bad name' }] })
      .catch((caught: Error) => caught);
    await admin.disconnect();
    expect((bad as Error & { errors?: { type: string }[] }).errors?.[0]?.type).toBe(
      'INVALID_TOPIC_EXCEPTION',
    );
    const listed = await fixture.streaming.listTopics(cluster);
    expect(listed.find((topic) => topic.name === 'orders-made-by-client')?.partitions).toBe(2);
  });

  it('advertises three brokers on three ports for the pro tier', async () => {
    const pro = streamingCluster('esc_kafkajs_pro', 'pro');
    const proObserved = await fixture.streaming.ensureCluster(pro);
    await fixture.streaming.ensureUser(pro, streamingUser('bob', 'bob-secret'));
    expect(proObserved.bootstrapServers).toHaveLength(3);
    const admin = kafkaClient(
      proObserved.bootstrapServers,
      proObserved.caCertificate,
      'bob',
      'bob-secret',
    ).admin();
    await admin.connect();
    const described = await admin.describeCluster();
    await admin.disconnect();
    expect(described.brokers.map((broker) => `${broker.host}:${broker.port}`).sort()).toEqual(
      [...proObserved.bootstrapServers].sort(),
    );
    expect(new Set(described.brokers.map((broker) => broker.port)).size).toBe(3);
  });
});
