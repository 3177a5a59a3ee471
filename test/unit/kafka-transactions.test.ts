import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isFlexible, type RequestContext } from '../../workloads/local/kafka/apis/api.js';
import { apiModule } from '../../workloads/local/kafka/apis/registry.js';
import { ErrorCode } from '../../workloads/local/kafka/errors.js';
import { KafkaCluster, SqliteLogStore } from '../../workloads/local/kafka/index.js';
import { Reader } from '../../workloads/local/kafka/protocol/codec.js';
import { encodeBatch, isControlBatch, splitBatches } from '../../workloads/local/kafka/records.js';
import { eventually } from '../fixtures/eventually.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import { apiSchemas, decodeMessage, encodeMessage } from '../fixtures/kafka-schema.js';

let dir: string;
let clock: FakeClock;
let cluster: KafkaCluster;

/** Kafka's transactional.id.expiration.ms, short enough to pass on the test's clock. */
const EXPIRATION_MS = 3_600_000;

function open(): KafkaCluster {
  const opened = new KafkaCluster({
    transactionalIdExpirationMs: EXPIRATION_MS,
    clusterId: 'esc_txn_unit',
    store: new SqliteLogStore(path.join(dir, 'log.db')),
    brokers: [
      { nodeId: 0, host: '127.0.0.1', port: 1 },
      { nodeId: 1, host: '127.0.0.1', port: 2 },
    ],
    limits: { brokers: 2, partitions: null, storageBytes: null, retentionMaxMs: null },
    logger: pino({ level: 'silent' }),
    clock,
    maintenanceIntervalMs: 0,
  });
  opened.start();
  return opened;
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-txn-'));
  clock = new FakeClock('2026-01-01T00:00:00Z');
  cluster = open();
  cluster.createTopic({
    name: 'orders',
    partitions: 2,
    replicas: 1,
    retentionMs: -1,
    cleanupPolicy: 'delete',
  });
});

afterEach(async () => {
  await cluster.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Sends one request of `key` at `version`, encoded from Kafka's schema, and decodes the answer. */
async function call(key: number, version: number, request: Record<string, unknown>, brokerId = 0) {
  const module = apiModule(key)!;
  const schemas = apiSchemas(key);
  const flexible = isFlexible(module, version);
  const context: RequestContext = {
    cluster,
    version,
    flexible,
    clientId: 'unit',
    clientHost: '127.0.0.1',
    brokerId,
    sasl: { mechanism: undefined, scram: undefined, rawTokens: false, principal: undefined, failed: false },
    principal: { name: 'admin', superuser: true, acls: [] },
    log: cluster.logger,
  };
  const answer = await module.handle(
    context,
    new Reader(encodeMessage(schemas.request, version, request), 0, flexible),
  );
  return decodeMessage(schemas.response, version, answer!.toBuffer()) as Record<string, unknown>;
}

const transactional = (producerId: number, baseSequence: number) =>
  splitBatches(
    encodeBatch(0, [{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: 1 }], {
      producerId,
      producerEpoch: 0,
      baseSequence,
      transactional: true,
    }),
  );

describe('the transaction coordinator', () => {
  it('aborts a transaction open past its timeout, fencing its producer, and says so to DescribeTransactions', async () => {
    const init = await cluster.transactions.initProducerId('payments', 1000);
    expect(init).toEqual({ errorCode: ErrorCode.NONE, producerId: 0, producerEpoch: 0 });
    expect(cluster.transactions.addPartitions('payments', 0, 0, [{ topic: 'orders', partition: 1 }])).toBe(
      ErrorCode.NONE,
    );
    await cluster.store.append('orders', 1, transactional(0, 0), 1);
    expect(cluster.store.lastStableOffset('orders', 1)).toBe(0);

    const coordinator = cluster.coordinatorOf('payments').nodeId;
    const ongoing = await call(65, 0, { TransactionalIds: ['payments'] }, coordinator);
    expect(ongoing.TransactionStates).toMatchObject([
      {
        ErrorCode: 0,
        TransactionState: 'Ongoing',
        TransactionTimeoutMs: 1000,
        ProducerId: 0,
        Topics: [{ Topic: 'orders', Partitions: [1] }],
      },
    ]);
    const elsewhere = await call(65, 0, { TransactionalIds: ['payments'] }, 1 - coordinator);
    expect(elsewhere.TransactionStates).toMatchObject([{ ErrorCode: ErrorCode.NOT_COORDINATOR }]);

    await clock.advance(1000);
    await eventually(() => expect(cluster.transactions.describe('payments')?.state).toBe('CompleteAbort'));
    const aborted = await call(65, 0, { TransactionalIds: ['payments'] }, coordinator);
    expect(aborted.TransactionStates).toMatchObject([
      { TransactionState: 'CompleteAbort', ProducerEpoch: 1 },
    ]);
    expect(cluster.store.lastStableOffset('orders', 1)).toBe(2);
    expect(cluster.store.abortedTransactions('orders', 1, 0, 1)).toEqual([{ producerId: 0, firstOffset: 0 }]);
    expect(await cluster.transactions.endTransaction('payments', 0, 0, true)).toBe(ErrorCode.PRODUCER_FENCED);
    const listed = await call(
      66,
      1,
      { StateFilters: ['CompleteAbort', 'Bogus'], ProducerIdFilters: [], DurationFilter: -1 },
      coordinator,
    );
    expect(listed).toMatchObject({
      UnknownStateFilters: ['Bogus'],
      TransactionStates: [{ TransactionalId: 'payments', TransactionState: 'CompleteAbort' }],
    });
  });

  it('aborts at start-up the transactions a stopped broker left open', async () => {
    await cluster.transactions.initProducerId('payments', 60_000);
    cluster.transactions.addPartitions('payments', 0, 0, [{ topic: 'orders', partition: 0 }]);
    await cluster.store.append('orders', 0, transactional(0, 0), 1);
    await cluster.close();
    cluster = open();
    await eventually(() =>
      expect(cluster.transactions.describe('payments')).toMatchObject({
        state: 'CompleteAbort',
        producerEpoch: 1,
      }),
    );
    const marker = cluster.store.read('orders', 0, 1, 1 << 20);
    expect(marker.map(isControlBatch)).toEqual([true]);
    const again = await cluster.transactions.initProducerId('payments', 60_000);
    expect(again).toMatchObject({ producerId: 0, producerEpoch: 2 });
  });

  it('answers a retried EndTxn the same, and the wrong one INVALID_TXN_STATE', async () => {
    await cluster.transactions.initProducerId('payments', 60_000);
    cluster.transactions.addPartitions('payments', 0, 0, [{ topic: 'orders', partition: 0 }]);
    expect(await cluster.transactions.endTransaction('payments', 0, 0, true)).toBe(ErrorCode.NONE);
    expect(await cluster.transactions.endTransaction('payments', 0, 0, true)).toBe(ErrorCode.NONE);
    expect(await cluster.transactions.endTransaction('payments', 0, 0, false)).toBe(
      ErrorCode.INVALID_TXN_STATE,
    );
    expect(await cluster.transactions.endTransaction('payments', 9, 0, true)).toBe(
      ErrorCode.INVALID_PRODUCER_ID_MAPPING,
    );
    expect(await cluster.transactions.initProducerId('payments', 0)).toMatchObject({
      errorCode: ErrorCode.INVALID_TRANSACTION_TIMEOUT,
    });
  });

  it('shows DescribeProducers each producer of a partition with its last sequence and open transaction', async () => {
    await cluster.transactions.initProducerId('payments', 60_000);
    cluster.transactions.addPartitions('payments', 0, 0, [{ topic: 'orders', partition: 0 }]);
    await cluster.store.append('orders', 0, transactional(0, 0), 1);
    await cluster.store.append('orders', 0, transactional(0, 1), 2);
    const described = await call(61, 0, { Topics: [{ Name: 'orders', PartitionIndexes: [0, 1] }] });
    expect(described.Topics).toMatchObject([
      {
        Name: 'orders',
        Partitions: [
          {
            PartitionIndex: 0,
            ActiveProducers: [{ ProducerId: 0, ProducerEpoch: 0, LastSequence: 1, CurrentTxnStartOffset: 0 }],
          },
          { PartitionIndex: 1, ActiveProducers: [] },
        ],
      },
    ]);
  });
});

describe('OffsetFetch with require_stable (KIP-447)', () => {
  const fetchV7 = (requireStable: boolean) =>
    call(9, 7, {
      GroupId: 'copier',
      Topics: [{ Name: 'orders', PartitionIndexes: [0, 1] }],
      RequireStable: requireStable,
    });
  const fetchV8 = (requireStable: boolean) =>
    call(9, 8, {
      Groups: [{ GroupId: 'copier', Topics: [{ Name: 'orders', PartitionIndexes: [0, 1] }] }],
      RequireStable: requireStable,
    });

  it('answers UNSTABLE_OFFSET_COMMIT for a partition whose offset an open transaction commits', async () => {
    await cluster.transactions.initProducerId('copier-tx', 60_000);
    expect(cluster.transactions.addOffsets('copier-tx', 0, 0, 'copier')).toBe(ErrorCode.NONE);
    expect(
      cluster.transactions.commitOffsets('copier-tx', 0, 0, 'copier', [
        { topic: 'orders', partition: 0, offset: 7, metadata: '', commitTime: 1 },
      ]),
    ).toBe(ErrorCode.NONE);

    const stable = await fetchV7(true);
    expect(stable.Topics).toMatchObject([
      {
        Name: 'orders',
        Partitions: [
          { PartitionIndex: 0, CommittedOffset: -1, ErrorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT },
          { PartitionIndex: 1, CommittedOffset: -1, ErrorCode: ErrorCode.NONE },
        ],
      },
    ]);
    expect(stable.ErrorCode).toBe(ErrorCode.NONE);
    const grouped = await fetchV8(true);
    expect(grouped.Groups).toMatchObject([
      {
        GroupId: 'copier',
        Topics: [{ Partitions: [{ ErrorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }, { ErrorCode: 0 }] }],
      },
    ]);
    const unasked = await fetchV7(false);
    expect(unasked.Topics).toMatchObject([{ Partitions: [{ ErrorCode: 0, CommittedOffset: -1 }, {}] }]);

    expect(await cluster.transactions.endTransaction('copier-tx', 0, 0, true)).toBe(ErrorCode.NONE);
    expect((await fetchV7(true)).Topics).toMatchObject([
      {
        Partitions: [
          { ErrorCode: 0, CommittedOffset: 7 },
          { ErrorCode: 0, CommittedOffset: -1 },
        ],
      },
    ]);
  });

  it('is stable again once the transaction aborts, with the offset it had', async () => {
    await cluster.transactions.initProducerId('copier-tx', 60_000);
    cluster.transactions.addOffsets('copier-tx', 0, 0, 'copier');
    cluster.transactions.commitOffsets('copier-tx', 0, 0, 'copier', [
      { topic: 'orders', partition: 1, offset: 3, metadata: '', commitTime: 1 },
    ]);
    expect((await fetchV8(true)).Groups).toMatchObject([
      { Topics: [{ Partitions: [{ ErrorCode: 0 }, { ErrorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }] }] },
    ]);
    expect(await cluster.transactions.endTransaction('copier-tx', 0, 0, false)).toBe(ErrorCode.NONE);
    expect((await fetchV8(true)).Groups).toMatchObject([
      { Topics: [{ Partitions: [{ ErrorCode: 0 }, { ErrorCode: 0, CommittedOffset: -1 }] }] },
    ]);
  });
});

describe('transactional id expiry (transactional.id.expiration.ms)', () => {
  const coordinator = () => cluster.coordinatorOf('idle-tx').nodeId;
  const listed = async () =>
    (
      (await call(66, 1, { StateFilters: [], ProducerIdFilters: [], DurationFilter: -1 }, coordinator()))
        .TransactionStates as { TransactionalId: string }[]
    ).map((entry) => entry.TransactionalId);

  it('forgets an id idle past the expiry: not listed, TRANSACTIONAL_ID_NOT_FOUND, a new producer id; durably', async () => {
    expect(await cluster.transactions.initProducerId('idle-tx', 60_000)).toMatchObject({ producerId: 0 });
    cluster.transactions.addPartitions('idle-tx', 0, 0, [{ topic: 'orders', partition: 0 }]);
    expect(await cluster.transactions.endTransaction('idle-tx', 0, 0, true)).toBe(ErrorCode.NONE);
    await cluster.transactions.initProducerId('busy-tx', 60_000);

    await clock.advance(EXPIRATION_MS - 1);
    cluster.transactions.addPartitions('busy-tx', 1, 0, [{ topic: 'orders', partition: 1 }]);
    cluster.runMaintenance();
    expect(await listed()).toContain('idle-tx');

    await clock.advance(1);
    cluster.runMaintenance();
    expect(await listed()).not.toContain('idle-tx');
    const described = await call(65, 0, { TransactionalIds: ['idle-tx'] }, coordinator());
    expect(described.TransactionStates).toMatchObject([
      { TransactionalId: 'idle-tx', ErrorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND },
    ]);
    // The producer still holding the old id no longer maps to it.
    expect(cluster.transactions.addPartitions('idle-tx', 0, 1, [{ topic: 'orders', partition: 0 }])).toBe(
      ErrorCode.INVALID_PRODUCER_ID_MAPPING,
    );
    // An id made as long ago whose producer opened a transaction since is kept.
    expect(cluster.transactions.describe('busy-tx')?.state).toBe('Ongoing');

    await cluster.close();
    cluster = open();
    expect(cluster.transactions.describe('idle-tx')).toBeUndefined();
    expect(await cluster.transactions.initProducerId('idle-tx', 60_000)).toMatchObject({
      errorCode: ErrorCode.NONE,
      producerId: 2,
      producerEpoch: 0,
    });
  });
});
