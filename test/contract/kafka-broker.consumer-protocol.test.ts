import { Admin, Consumer, type Message } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import { eventually } from '../fixtures/eventually.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const cluster = streamingCluster('esc_kip848', 'pro');
const TOPIC = 'shared-orders';
const GROUP = 'kip848-readers';
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
const consumers: Consumer[] = [];

/** A member of the consumer group of the new protocol (KIP-848), reading what it is assigned. */
async function member(seen: string[]): Promise<Consumer> {
  const consumer = new Consumer({
    clientId: `kip848-${consumers.length}`,
    groupId: GROUP,
    groupProtocol: 'consumer',
    bootstrapBrokers: observed.bootstrapServers,
    tls: { ca: observed.caCertificate },
    sasl: { mechanism: 'SCRAM-SHA-512', username: 'reader', password: 'reader-secret' },
  });
  consumers.push(consumer);
  const stream = await consumer.consume({ topics: [TOPIC], mode: 'earliest', autocommit: true });
  stream.on('data', (message: Message) => seen.push(`${message.partition}:${message.value.toString()}`));
  return consumer;
}

async function produce(from: number, count: number): Promise<void> {
  const producer = kafkaClient(
    observed.bootstrapServers,
    observed.caCertificate,
    'reader',
    'reader-secret',
  ).producer();
  await producer.connect();
  await producer.send({
    topic: TOPIC,
    messages: Array.from({ length: count }, (_, i) => ({ partition: (from + i) % 4, value: `${from + i}` })),
  });
  await producer.disconnect();
}

const partitionsOf = (consumer: Consumer) =>
  (consumer.assignments ?? []).flatMap((entry) => entry.partitions).sort();

describe('the consumer group protocol (KIP-848) with @platformatic/kafka', () => {
  beforeAll(async () => {
    fixture = startStreaming({ first: 29240, last: 29259 });
    observed = await fixture.streaming.ensureCluster(cluster);
    await fixture.streaming.ensureUser(cluster, streamingUser('reader', 'reader-secret', '', 'kip848-*'));
    await fixture.streaming.ensureTopic(cluster, {
      name: TOPIC,
      partitions: 4,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
  });

  afterAll(async () => {
    for (const consumer of consumers) await consumer.close(true);
    await fixture?.cleanup();
  });

  it('assigns every partition to the one member, then splits them when a second joins, never to both', async () => {
    await produce(0, 40);
    const first: string[] = [];
    const a = await member(first);
    await eventually(() => expect(first).toHaveLength(40), 30_000);
    expect(partitionsOf(a)).toEqual([0, 1, 2, 3]);

    const second: string[] = [];
    const b = await member(second);
    await eventually(() => {
      expect(partitionsOf(a)).toHaveLength(2);
      expect(partitionsOf(b)).toHaveLength(2);
    }, 30_000);
    expect([...partitionsOf(a), ...partitionsOf(b)].sort()).toEqual([0, 1, 2, 3]);

    first.length = 0;
    await produce(40, 40);
    await eventually(() => expect(first.length + second.length).toBeGreaterThanOrEqual(40), 30_000);
    const taken = [...first, ...second].map((entry) => Number(entry.split(':')[1]));
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.filter((value) => value >= 40).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => 40 + i),
    );
    const partitionOfEntry = (entry: string) => Number(entry.split(':')[0]);
    expect(first.every((entry) => partitionsOf(a).includes(partitionOfEntry(entry)))).toBe(true);
    expect(second.every((entry) => partitionsOf(b).includes(partitionOfEntry(entry)))).toBe(true);

    // Tools see a consumer group, and the platform its two members with what each reads.
    const admin = new Admin({
      clientId: 'kip848-admin',
      bootstrapBrokers: observed.bootstrapServers,
      tls: { ca: observed.caCertificate },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'reader', password: 'reader-secret' },
    });
    try {
      const listed = await admin.listGroups({ types: ['consumer'] });
      expect([...listed.values()].map((group) => [group.id, group.groupType])).toEqual([[GROUP, 'consumer']]);
    } finally {
      await admin.close();
    }
    const [observedGroup] = (await fixture.streaming.listGroups(cluster)).filter(
      (group) => group.groupId === GROUP,
    );
    expect(observedGroup).toMatchObject({ state: 'Stable', topics: [TOPIC] });
    expect(observedGroup!.members).toHaveLength(2);
  }, 90_000);
});
