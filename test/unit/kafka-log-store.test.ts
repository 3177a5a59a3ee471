import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KafkaCluster, SqliteLogStore } from '../../workloads/local/kafka/index.js';
import { ErrorCode } from '../../workloads/local/kafka/errors.js';
import type { TransactionRecord } from '../../workloads/local/kafka/log-store.js';
import {
  decodeRecords,
  encodeBatch,
  isControlBatch,
  readBaseOffset,
  splitBatches,
  type BatchProducer,
} from '../../workloads/local/kafka/records.js';
import type { CleanupPolicy } from '../../workloads/runtime.js';
import { FakeClock } from '../fixtures/fake-clock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function storeFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-store-'));
  dirs.push(dir);
  return path.join(dir, 'log.sqlite');
}

function withTopic(file: string, cleanupPolicy: CleanupPolicy, retentionMs = 60_000): SqliteLogStore {
  const store = new SqliteLogStore(file);
  store.createTopic({
    name: 't',
    partitions: 1,
    replicas: 1,
    retentionMs,
    cleanupPolicy,
    createdAt: new Date(0).toISOString(),
  });
  return store;
}

const batch = (timestamp: number, ...pairs: [string, string][]) =>
  splitBatches(
    encodeBatch(
      0,
      pairs.map(([key, value]) => ({ key: Buffer.from(key), value: Buffer.from(value), timestamp })),
    ),
  );

/** A batch of `count` records from producer 7 (epoch 0 unless told) from `baseSequence`. */
const produced = (baseSequence: number, count: number, producer: Partial<BatchProducer> = {}) =>
  splitBatches(
    encodeBatch(
      0,
      Array.from({ length: count }, (_, i) => ({
        key: Buffer.from('k'),
        value: Buffer.from(`v${baseSequence + i}`),
        timestamp: 1,
      })),
      { producerId: 7, producerEpoch: 0, baseSequence, ...producer },
    ),
  );

function values(store: SqliteLogStore): [number, string, string][] {
  return store
    .read('t', 0, 0, 1 << 20)
    .flatMap((bytes) =>
      decodeRecords(bytes).map(
        (record) =>
          [readBaseOffset(bytes) + record.offsetDelta, record.key!.toString(), record.value!.toString()] as [
            number,
            string,
            string,
          ],
      ),
    );
}

describe('the SQLite log store', () => {
  it('gives a topic an id that stays across a reopen, and ids to topics of a store made before them', () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    const id = store.topic('t')!.topicId;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    store.close();
    const reopened = new SqliteLogStore(file);
    expect(reopened.topic('t')!.topicId).toBe(id);
    reopened.close();
    // A store written before topic ids: its topics table has no such column.
    const olderFile = storeFile();
    const older = new Database(olderFile);
    older.exec(`CREATE TABLE topics (name TEXT PRIMARY KEY, partitions INTEGER NOT NULL, replicas INTEGER NOT NULL,
      retention_ms INTEGER NOT NULL, cleanup_policy TEXT NOT NULL, created_at TEXT NOT NULL);
      INSERT INTO topics VALUES ('old', 1, 1, -1, 'delete', '1970-01-01T00:00:00.000Z');`);
    older.close();
    const upgraded = new SqliteLogStore(olderFile);
    const oldId = upgraded.topic('old')!.topicId;
    expect(oldId).toMatch(/^[0-9a-f-]{36}$/);
    // Its topics were durable before each answer, and stay so.
    expect(upgraded.topic('old')).toMatchObject({ flushMessages: 1, flushMs: Number.POSITIVE_INFINITY });
    upgraded.close();
    const again = new SqliteLogStore(olderFile);
    expect(again.topic('old')!.topicId).toBe(oldId);
    again.close();
  });

  it("keeps a topic's flush settings across a reopen, and its appends and offset commits of one turn", async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    expect(store.topic('t')).toMatchObject({ flushMessages: 1, flushMs: Number.POSITIVE_INFINITY });
    store.updateTopic('t', { flushMessages: Number.POSITIVE_INFINITY, flushMs: 1000 });
    const offsets = [{ topic: 't', partition: 0, offset: 2, metadata: null, commitTime: 1 }];
    await Promise.all([
      store.append('t', 0, batch(1, ['a', '1'], ['b', '2']), 1),
      store.commitOffsets('readers', offsets),
      store.append('t', 0, batch(1, ['c', '3']), 1),
    ]);
    store.close();
    const reopened = new SqliteLogStore(file);
    expect(reopened.topic('t')).toMatchObject({ flushMessages: Number.POSITIVE_INFINITY, flushMs: 1000 });
    expect(values(reopened).map(([offset]) => offset)).toEqual([0, 1, 2]);
    expect(reopened.committedOffsets('readers')).toEqual(offsets);
    reopened.close();
  });

  it("checkpoints a topic's appends into the database by its flush.ms", async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    store.updateTopic('t', { flushMessages: Number.POSITIVE_INFINITY, flushMs: 50 });
    const before = fs.statSync(file).size;
    await store.append('t', 0, batch(1, ['k', 'v'.repeat(64 * 1024)]), 1);
    // Committed to the WAL only: the database file has not grown yet.
    expect(fs.statSync(file).size).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 64 * 1024);
    store.close();
  });

  it("answers a group's offset commit once written, and checkpoints it into the database within a second", async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    const before = fs.statSync(file).size;
    const offsets = [{ topic: 't', partition: 0, offset: 7, metadata: 'm'.repeat(64 * 1024), commitTime: 1 }];
    await store.commitOffsets('readers', offsets);
    // Committed to the WAL only: the database file has not grown yet.
    expect(fs.statSync(file).size).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 64 * 1024);
    expect(store.committedOffsets('readers')).toEqual(offsets);
    store.close();
  });

  it('answers durable appends of later turns in order while an fsync runs, on pages of 16 KiB', async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    const answered: number[] = [];
    const appends: Promise<unknown>[] = [];
    for (let turn = 0; turn < 5; turn++) {
      appends.push(
        store.append('t', 0, batch(1, ['k', `v${turn}`]), 1).then((r) => answered.push(r.baseOffset)),
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(appends);
    expect(answered).toEqual([0, 1, 2, 3, 4]);
    store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('page_size', { simple: true })).toBe(16_384);
    raw.close();
  });

  it('keeps the appends that were waiting for an fsync when it is closed', async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    const first = store.append('t', 0, batch(1, ['k', 'a']), 1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = store.append('t', 0, batch(1, ['k', 'b']), 1);
    await new Promise((resolve) => setImmediate(resolve));
    store.close();
    await Promise.allSettled([first, second]);
    const reopened = new SqliteLogStore(file);
    expect(values(reopened).map(([, , value]) => value)).toEqual(['a', 'b']);
    reopened.close();
  });

  it('deletes records below an offset: the log start moves there, never past the log end', async () => {
    const store = withTopic(storeFile(), 'delete');
    await store.append('t', 0, batch(1, ['a', '1']), 1);
    await store.append('t', 0, batch(1, ['b', '2']), 1);
    await store.append('t', 0, batch(1, ['c', '3']), 1);
    expect(store.deleteRecordsBefore('t', 0, 2)).toMatchObject({ logStartOffset: 2, logEndOffset: 3 });
    expect(values(store)).toEqual([[2, 'c', '3']]);
    expect(store.deleteRecordsBefore('t', 0, 1)).toMatchObject({ logStartOffset: 2 });
    expect(store.deleteRecordsBefore('t', 0, 9)).toMatchObject({ logStartOffset: 3, logEndOffset: 3 });
    store.close();
  });

  it('assigns consecutive offsets, rewrites base offsets, and keeps them across a reopen', async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    const [a, b] = await Promise.all([
      store.append('t', 0, batch(1, ['k', '1'], ['k', '2']), 5),
      store.append('t', 0, batch(1, ['k', '3']), 5),
    ]);
    expect([a.baseOffset, b.baseOffset]).toEqual([0, 2]);
    store.close();
    const reopened = new SqliteLogStore(file);
    expect(reopened.partition('t', 0)).toMatchObject({ logStartOffset: 0, logEndOffset: 3 });
    expect(values(reopened).map(([offset]) => offset)).toEqual([0, 1, 2]);
    expect(reopened.read('t', 0, 2, 1).map(readBaseOffset)).toEqual([2]);
    reopened.close();
  });

  it('reads the batches from an offset as stored, filling the byte budget and stopping at the bound', async () => {
    const store = withTopic(storeFile(), 'delete');
    for (let i = 0; i < 6; i++) await store.append('t', 0, batch(1, ['k', `v${i}`], ['k', `w${i}`]), 5);
    const all = store.read('t', 0, 0, 1 << 20);
    expect(all.map(readBaseOffset)).toEqual([0, 2, 4, 6, 8, 10]);
    const size = all[0]!.length;
    // From inside a batch, the batch holding the offset comes first.
    expect(store.read('t', 0, 5, 3 * size).map(readBaseOffset)).toEqual([4, 6, 8]);
    expect(store.read('t', 0, 5, 3 * size - 1).map(readBaseOffset)).toEqual([4, 6]);
    // The first batch comes whatever the budget.
    expect(store.read('t', 0, 0, 1).map(readBaseOffset)).toEqual([0]);
    expect(store.read('t', 0, 0, 1 << 20, 6).map(readBaseOffset)).toEqual([0, 2, 4]);
    expect(store.read('t', 0, 12, 1 << 20)).toEqual([]);
    store.close();
  });

  it('drops batches older than the retention and advances the log start', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const start = clock.now().getTime();
    const store = withTopic(storeFile(), 'delete', 60_000);
    const cluster = new KafkaCluster({
      clusterId: 'esc_retention',
      store,
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 1 }],
      limits: { brokers: 1, partitions: null, storageBytes: null, retentionMaxMs: null },
      logger: pino({ level: 'silent' }),
      clock,
    });
    await store.append('t', 0, batch(start, ['a', 'old']), start);
    await clock.advance(50_000);
    await store.append('t', 0, batch(start + 50_000, ['b', 'new']), start + 50_000);
    await clock.advance(20_000);
    cluster.runMaintenance();
    expect(store.partition('t', 0)).toMatchObject({ logStartOffset: 1, logEndOffset: 2 });
    expect(values(store)).toEqual([[1, 'b', 'new']]);
    await clock.advance(60_000);
    cluster.runMaintenance();
    expect(store.partition('t', 0)).toMatchObject({ logStartOffset: 2, logEndOffset: 2, sizeBytes: 0 });
    await cluster.close();
  });

  it('drops the oldest batches while the cluster is over its storage', async () => {
    const store = withTopic(storeFile(), 'delete', -1);
    for (let i = 0; i < 10; i++) await store.append('t', 0, batch(i, ['k', 'x'.repeat(100)]), i);
    const one = store.totalBytes() / 10;
    store.enforceRetention(Date.now(), one * 4);
    expect(store.partition('t', 0)).toMatchObject({ logStartOffset: 6, logEndOffset: 10 });
    expect(store.totalBytes()).toBeLessThanOrEqual(one * 4);
    store.close();
  });

  it('compacts to the newest record per key, offsets unchanged', async () => {
    const store = withTopic(storeFile(), 'compact', -1);
    await store.append('t', 0, batch(1, ['a', 'a1'], ['b', 'b1']), 1);
    await store.append('t', 0, batch(2, ['a', 'a2'], ['c', 'c1']), 2);
    await store.append('t', 0, batch(3, ['b', 'b2']), 3);
    store.compact();
    expect(values(store)).toEqual([
      [2, 'a', 'a2'],
      [3, 'c', 'c1'],
      [4, 'b', 'b2'],
    ]);
    expect(store.partition('t', 0)).toMatchObject({ logStartOffset: 0, logEndOffset: 5 });
    for (const bytes of store.read('t', 0, 0, 1 << 20)) expect(() => splitBatches(bytes)).not.toThrow();
    store.close();
  });

  it('finds the first offset at or after a timestamp', async () => {
    const store = withTopic(storeFile(), 'delete');
    await store.append(
      't',
      0,
      splitBatches(
        encodeBatch(
          0,
          [10, 20, 30].map((timestamp) => ({ key: null, value: Buffer.from('v'), timestamp })),
        ),
      ),
      1,
    );
    expect([5, 20, 25, 99].map((timestamp) => store.offsetForTimestamp('t', 0, timestamp))).toEqual([
      0, 1, 2, 3,
    ]);
    store.close();
  });

  it('answers a retried idempotent batch with its first offset, writing nothing, across a reopen', async () => {
    const file = storeFile();
    const store = withTopic(file, 'delete');
    expect(await store.append('t', 0, produced(0, 3), 1)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await store.append('t', 0, produced(3, 2), 1)).toMatchObject({ errorCode: 0, baseOffset: 3 });
    store.close();
    const reopened = new SqliteLogStore(file);
    expect(await reopened.append('t', 0, produced(0, 3), 2)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await reopened.append('t', 0, produced(3, 2), 2)).toMatchObject({ errorCode: 0, baseOffset: 3 });
    expect(await reopened.append('t', 0, produced(9, 1), 2)).toMatchObject({
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    });
    expect(reopened.partition('t', 0)).toMatchObject({ logEndOffset: 5 });
    expect(reopened.producers('t', 0)).toMatchObject([{ producerId: 7, producerEpoch: 0 }]);
    reopened.close();
  });

  it('checks appends of one group commit against each other', async () => {
    const store = withTopic(storeFile(), 'delete');
    const answers = await Promise.all([
      store.append('t', 0, produced(0, 2), 1),
      store.append('t', 0, produced(0, 2), 1),
      store.append('t', 0, produced(2, 1), 1),
    ]);
    expect(answers.map((answer) => [answer.errorCode, answer.baseOffset])).toEqual([
      [0, 0],
      [0, 0],
      [0, 2],
    ]);
    expect(store.partition('t', 0)).toMatchObject({ logEndOffset: 3 });
    store.close();
  });

  it('ends a transaction with markers, the aborted index and its offsets in one write', async () => {
    const file = storeFile();
    const store = withTopic(file, 'compact');
    const record: TransactionRecord = {
      transactionalId: 'tx',
      producerId: 7,
      producerEpoch: 0,
      timeoutMs: 60_000,
      state: 'CompleteAbort',
      partitions: [],
      groups: [],
      startedAt: -1,
      updatedAt: 1,
    };
    await store.append('t', 0, batch(1, ['before', 'x']), 1);
    await store.append('t', 0, produced(0, 2, { transactional: true }), 1);
    expect(store.lastStableOffset('t', 0)).toBe(1);
    const offsets = [{ topic: 't', partition: 0, offset: 3, metadata: null, commitTime: 1 }];
    await store.endTransaction(
      {
        producerId: 7,
        producerEpoch: 0,
        commit: false,
        offsets: [{ groupId: 'g', offsets }],
        record,
        partitions: [{ topic: 't', partition: 0 }],
      },
      2,
    );
    expect(store.lastStableOffset('t', 0)).toBe(4);
    expect(store.abortedTransactions('t', 0, 0, 3)).toEqual([{ producerId: 7, firstOffset: 1 }]);
    expect(store.committedOffsets('g')).toEqual([]);
    await store.append('t', 0, produced(2, 1, { transactional: true }), 3);
    await store.endTransaction(
      {
        producerId: 7,
        producerEpoch: 0,
        commit: true,
        offsets: [{ groupId: 'g', offsets }],
        record: { ...record, state: 'CompleteCommit' },
        partitions: [{ topic: 't', partition: 0 }],
      },
      4,
    );
    store.compact();
    store.close();
    const reopened = new SqliteLogStore(file);
    expect(
      reopened
        .read('t', 0, 0, 1 << 20)
        .filter(isControlBatch)
        .map(readBaseOffset),
    ).toEqual([3, 5]);
    expect(reopened.lastStableOffset('t', 0)).toBe(6);
    expect(reopened.abortedTransactions('t', 0, 4, 6)).toEqual([]);
    expect(reopened.committedOffsets('g')).toMatchObject([{ offset: 3 }]);
    expect(reopened.transactions()).toMatchObject([{ transactionalId: 'tx', state: 'CompleteCommit' }]);
    reopened.close();
  });
});
