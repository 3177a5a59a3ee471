import { Admin } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Consumer, Kafka } from 'kafkajs';
import type { StreamingClusterObservation, StreamingUserSpec } from '../../workloads/runtime.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const cluster = streamingCluster('esc_txn', 'pro');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let kafka: Kafka;

/** Everything on topics `ledger…` and transactional ids `ledger-…`. */
function ledgerUser(name: string, password: string): StreamingUserSpec {
  const user = streamingUser(name, password, 'ledger', 'ledger-*');
  return {
    ...user,
    acls: [
      ...user.acls,
      {
        resourceType: 'transactional_id',
        patternType: 'prefixed',
        name: 'ledger-',
        operations: ['write', 'describe'],
        permission: 'allow',
      },
    ],
  };
}

beforeAll(async () => {
  fixture = startStreaming({ first: 29200, last: 29219 });
  observed = await fixture.streaming.ensureCluster(cluster);
  await fixture.streaming.ensureUser(cluster, ledgerUser('tess', 'tess-secret'));
  // WRITE on topics, only DESCRIBE on transactional ids: idempotent yes, transactions no.
  const ida = streamingUser('ida', 'ida-secret', 'ledger', 'ledger-*');
  await fixture.streaming.ensureUser(cluster, {
    ...ida,
    acls: [
      ...ida.acls,
      {
        resourceType: 'transactional_id',
        patternType: 'literal',
        name: '*',
        operations: ['describe'],
        permission: 'allow',
      },
    ],
  });
  // READ only: not even idempotent.
  await fixture.streaming.ensureUser(cluster, {
    name: 'rita',
    credential: streamingUser('rita', 'rita-secret').credential,
    acls: [
      {
        resourceType: 'topic',
        patternType: 'prefixed',
        name: 'ledger',
        operations: ['read'],
        permission: 'allow',
      },
    ],
  });
  for (const name of ['ledger-idempotent', 'ledger-txn', 'ledger-in', 'ledger-out', 'ledger-fenced']) {
    await fixture.streaming.ensureTopic(cluster, {
      name,
      partitions: 3,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
  }
  for (const name of ['ledger-single', 'ledger-slow']) {
    await fixture.streaming.ensureTopic(cluster, {
      name,
      partitions: 1,
      replicas: 1,
      retentionMs: 86_400_000,
      cleanupPolicy: 'delete',
    });
  }
  kafka = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'tess', 'tess-secret');
});

afterAll(async () => {
  await fixture?.cleanup();
});

/** Every value on `topic`, read from the beginning until `expected` have come. */
async function readValues(consumer: Consumer, topic: string, expected: number): Promise<string[]> {
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length >= expected) resolve();
      },
    });
  });
  await consumer.disconnect();
  return values;
}

async function admin<T>(work: (client: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const client = kafka.admin();
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.disconnect();
  }
}

/** The Kafka error names inside an error of @platformatic/kafka, however deeply it wraps them. */
function protocolErrorIds(error: unknown): string[] {
  if (typeof error !== 'object' || error === null) return [];
  const { apiId, errors } = error as { apiId?: string; errors?: unknown[] };
  return [...(apiId ? [apiId] : []), ...(errors ?? []).flatMap(protocolErrorIds)];
}

describe('idempotent and transactional producers (kafkajs) on the embedded broker', () => {
  it('takes an idempotent producer: every record once, in order per partition', async () => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let round = 0; round < 5; round++) {
      await producer.send({
        topic: 'ledger-idempotent',
        acks: -1,
        messages: Array.from({ length: 60 }, (_, i) => ({
          key: `account-${i % 6}`,
          value: `entry-${round * 60 + i}`,
        })),
      });
    }
    await producer.disconnect();
    const values = await readValues(kafka.consumer({ groupId: 'ledger-idem' }), 'ledger-idempotent', 300);
    expect(new Set(values).size).toBe(300);
    expect(values).toHaveLength(300);
  });

  it('refuses an idempotent producer to a user that may write no topic, with CLUSTER_AUTHORIZATION_FAILED', async () => {
    const reader = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'rita', 'rita-secret');
    const producer = reader.producer({ idempotent: true, maxInFlightRequests: 1 });
    await expect(producer.connect()).rejects.toMatchObject({ type: 'CLUSTER_AUTHORIZATION_FAILED' });
    await producer.disconnect();
  });

  it('refuses transactions to a user with DESCRIBE but not WRITE on the transactional id', async () => {
    const writer = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'ida', 'ida-secret');
    const producer = writer.producer({
      transactionalId: 'ledger-ida',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    await expect(producer.transaction()).rejects.toMatchObject({
      type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    });
    await producer.disconnect();
  });

  it('shows read_committed readers only committed transactions, read_uncommitted ones everything', async () => {
    const producer = kafka.producer({
      transactionalId: 'ledger-writer',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({
      topic: 'ledger-txn',
      messages: Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: `committed-${i}` })),
    });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({
      topic: 'ledger-txn',
      messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `aborted-${i}` })),
    });
    await aborted.abort();
    const later = await producer.transaction();
    await later.send({ topic: 'ledger-txn', messages: [{ key: 'k0', value: 'committed-last' }] });
    await later.commit();
    await producer.disconnect();

    const readCommitted = await readValues(kafka.consumer({ groupId: 'ledger-committed' }), 'ledger-txn', 10);
    expect(readCommitted.sort()).toEqual([
      'committed-0',
      'committed-1',
      'committed-2',
      'committed-3',
      'committed-4',
      'committed-5',
      'committed-6',
      'committed-7',
      'committed-8',
      'committed-last',
    ]);
    const everything = await readValues(
      kafka.consumer({ groupId: 'ledger-uncommitted', readUncommitted: true }),
      'ledger-txn',
      16,
    );
    expect(everything.filter((value) => value.startsWith('aborted-'))).toHaveLength(6);
  });

  it('hides an open transaction from read_committed readers until it commits', async () => {
    const producer = kafka.producer({
      transactionalId: 'ledger-open',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const open = await producer.transaction();
    await open.send({ topic: 'ledger-fenced', messages: [{ key: 'a', value: 'pending' }] });
    const seen: string[] = [];
    const consumer = kafka.consumer({ groupId: 'ledger-waiting' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'ledger-fenced', fromBeginning: true });
    const arrived = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString());
          resolve();
        },
      });
    });
    const peek = kafka.consumer({ groupId: 'ledger-peek', readUncommitted: true });
    expect(await readValues(peek, 'ledger-fenced', 1)).toEqual(['pending']);
    expect(seen).toEqual([]);
    await open.commit();
    await arrived;
    await consumer.disconnect();
    await producer.disconnect();
    expect(seen).toEqual(['pending']);
  });

  it('commits a consume-transform-produce loop with sendOffsets, exactly once', async () => {
    const source = kafka.producer();
    await source.connect();
    await source.send({
      topic: 'ledger-in',
      acks: -1,
      messages: Array.from({ length: 30 }, (_, i) => ({ key: `p${i % 3}`, value: `${i}` })),
    });
    await source.disconnect();

    const producer = kafka.producer({
      transactionalId: 'ledger-doubler',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const consumer = kafka.consumer({ groupId: 'ledger-doublers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'ledger-in', fromBeginning: true });
    let processed = 0;
    await new Promise<void>((resolve, reject) => {
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const transaction = await producer.transaction();
          try {
            await transaction.send({
              topic: 'ledger-out',
              messages: batch.messages.map((message) => ({ value: `${Number(message.value) * 2}` })),
            });
            await transaction.sendOffsets({
              consumerGroupId: 'ledger-doublers',
              topics: [
                {
                  topic: batch.topic,
                  partitions: [{ partition: batch.partition, offset: `${Number(batch.lastOffset()) + 1}` }],
                },
              ],
            });
            await transaction.commit();
          } catch (error) {
            await transaction.abort().catch(() => undefined);
            reject(error as Error);
            return;
          }
          processed += batch.messages.length;
          if (processed === 30) resolve();
        },
      });
    });
    await consumer.disconnect();
    await producer.disconnect();

    const doubled = await readValues(kafka.consumer({ groupId: 'ledger-out-reader' }), 'ledger-out', 30);
    expect(doubled.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    const committed = await admin(async (client) =>
      client.fetchOffsets({ groupId: 'ledger-doublers', topics: ['ledger-in'] }),
    );
    // -1: a partition that had nothing to consume has no offset.
    const total = committed[0]!.partitions.reduce((sum, entry) => sum + Math.max(0, Number(entry.offset)), 0);
    expect(total).toBe(30);
  });

  it('answers a require_stable OffsetFetch UNSTABLE_OFFSET_COMMIT while a transaction holds the offset (KIP-447)', async () => {
    const producer = kafka.producer({
      transactionalId: 'ledger-stable',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    // @platformatic/kafka asks OffsetFetch v9 with require_stable, as Java's read_committed consumers do.
    const newest = new Admin({
      clientId: 'stable-offsets',
      bootstrapBrokers: observed.bootstrapServers,
      tls: { ca: observed.caCertificate },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'tess', password: 'tess-secret' },
      retries: 0,
    });
    const offsets = (requireStable: boolean) =>
      newest.listConsumerGroupOffsets({
        groups: [
          { groupId: 'ledger-stable-group', topics: [{ name: 'ledger-single', partitionIndexes: [0] }] },
        ],
        requireStable,
      });
    try {
      const transaction = await producer.transaction();
      await transaction.sendOffsets({
        consumerGroupId: 'ledger-stable-group',
        topics: [{ topic: 'ledger-single', partitions: [{ partition: 0, offset: '5' }] }],
      });
      const refused = await offsets(true).then(
        () => [],
        (error: unknown) => protocolErrorIds(error),
      );
      expect(refused).toContain('UNSTABLE_OFFSET_COMMIT');
      const [unstable] = await offsets(false);
      expect(unstable!.topics[0]!.partitions[0]!.committedOffset).toBe(-1n);

      await transaction.commit();
      const [stable] = await offsets(true);
      expect(stable!.topics[0]!.partitions[0]!.committedOffset).toBe(5n);
    } finally {
      await newest.close();
      await producer.disconnect();
    }
  });

  it('fences the older producer of a transactional id once a newer one initializes', async () => {
    const older = kafka.producer({
      transactionalId: 'ledger-fence',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await older.connect();
    const stale = await older.transaction();
    await stale.send({ topic: 'ledger-single', messages: [{ key: 'z', value: 'from-the-older' }] });

    const newer = kafka.producer({
      transactionalId: 'ledger-fence',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await newer.connect();
    const current = await newer.transaction();
    await current.send({ topic: 'ledger-single', messages: [{ key: 'z', value: 'from-the-newer' }] });
    await current.commit();

    await expect(stale.commit()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await older.disconnect();
    await newer.disconnect();
    // One partition: the older producer's record, had it been kept, would come first.
    const seen = await readValues(kafka.consumer({ groupId: 'ledger-fence-reader' }), 'ledger-single', 1);
    expect(seen).toEqual(['from-the-newer']);
  });

  it('aborts a transaction open past its timeout and fences its producer', async () => {
    const producer = kafka.producer({
      transactionalId: 'ledger-slow',
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 500,
    });
    await producer.connect();
    const slow = await producer.transaction();
    await slow.send({ topic: 'ledger-slow', messages: [{ key: 'late', value: 'timed-out' }] });
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: 'ledger-slow', acks: -1, messages: [{ value: 'plain' }] });
    await plain.disconnect();
    // read_committed readers reach `plain` only once the open transaction before it has ended.
    const seen = await readValues(kafka.consumer({ groupId: 'ledger-after-timeout' }), 'ledger-slow', 1);
    expect(seen).toEqual(['plain']);
    await expect(slow.commit()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await producer.disconnect();
  });
});
