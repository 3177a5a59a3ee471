import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { openSqliteFile, type WalSync } from '../../../control-plane/embedded-store/index.js';
import type { CleanupPolicy, StreamingUserSpec } from '../../runtime.js';
import { ErrorCode } from './errors.js';
import {
  DURABLE,
  flushDeadline,
  flushDue,
  NEVER,
  OFFSET_COMMIT_FLUSH_MS,
  type FlushPolicy,
  type Unflushed,
} from './flush-policy.js';
import { afterAppend, afterMarker, checkSequence, type ProducerEntry } from './producers.js';
import {
  batchCompression,
  decodeRecords,
  encodeControlBatch,
  isControlBatch,
  lastOffsetOf,
  rebuildBatch,
  setBaseOffset,
  type BatchHeader,
  type DecodedRecord,
} from './records.js';

/** A topic as the store keeps it, with when its appends reach the disk. */
export interface StoredTopic extends FlushPolicy {
  name: string;
  partitions: number;
  replicas: number;
  /** ms; -1: forever. */
  retentionMs: number;
  cleanupPolicy: CleanupPolicy;
  createdAt: string;
  /** Kafka's topic id (a UUID), made when the topic is and kept for its life. */
  topicId: string;
}

/**
 * A topic to create: its id is made by the store unless given; every append durable before it is
 * answered unless its flush policy says otherwise.
 */
export type NewTopic = Omit<StoredTopic, 'topicId' | keyof FlushPolicy> & {
  topicId?: string;
} & Partial<FlushPolicy>;

/** What an alteration of a topic's configs changes. */
export type TopicUpdate = Partial<Pick<StoredTopic, 'retentionMs' | 'cleanupPolicy' | keyof FlushPolicy>>;

export interface PartitionState {
  logStartOffset: number;
  /** The offset the next record gets: the high watermark (every stored record is committed). */
  logEndOffset: number;
  sizeBytes: number;
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: number;
  metadata: string | null;
  commitTime: number;
}

export interface AppendResult {
  /** NONE, or why an idempotent producer's batch was refused (nothing written). */
  errorCode: number;
  /** The first offset written; for a retried batch, the offset it was written at before. */
  baseOffset: number;
  logStartOffset: number;
}

export type TransactionState =
  'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort';

/** A transactional id's state as its coordinator keeps it durably (Kafka's __transaction_state). */
export interface TransactionRecord {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  timeoutMs: number;
  state: TransactionState;
  partitions: { topic: string; partition: number }[];
  /** Groups whose offsets the transaction commits (AddOffsetsToTxn). */
  groups: string[];
  /** When the open transaction began (ms); -1 when none is open. */
  startedAt: number;
  updatedAt: number;
}

/** The end of a transaction, written at once: markers, the offsets it commits and its new state. */
export interface TransactionEnd {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  offsets: { groupId: string; offsets: CommittedOffset[] }[];
  /** The state after the markers, whose `partitions` are those the markers go to. */
  record: TransactionRecord;
  partitions: { topic: string; partition: number }[];
}

export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

/**
 * Where a cluster's records, topics, users and committed offsets live. Appends resolve only once
 * durable; reads return raw batches whose base offsets are the assigned ones.
 */
export interface LogStore {
  topics(): StoredTopic[];
  topic(name: string): StoredTopic | undefined;
  createTopic(topic: NewTopic): StoredTopic;
  deleteTopic(name: string): void;
  setPartitionCount(name: string, partitions: number): void;
  updateTopic(name: string, change: TopicUpdate): void;
  partition(topic: string, partition: number): PartitionState | undefined;
  /**
   * DeleteRecords: drops the records below `offset` and moves the log start there (never past the
   * log end, never back); the partition's state after.
   */
  deleteRecordsBefore(topic: string, partition: number, offset: number): PartitionState | undefined;
  /**
   * Assigns offsets to `batches` (rewriting their base offsets in place) and stores them durably,
   * with their producer's state on the partition in the same transaction. An idempotent producer's
   * retried batch is answered with the offset it already has, and nothing is written.
   */
  append(topic: string, partition: number, batches: BatchHeader[], appendTime: number): Promise<AppendResult>;
  /**
   * Batches holding offsets from `offset` on, up to `maxBytes` (the first batch always), none
   * starting at or past `maxOffset` (the last stable offset, for read_committed).
   */
  read(topic: string, partition: number, offset: number, maxBytes: number, maxOffset?: number): Buffer[];
  /** The first offset of the oldest transaction still open on the partition; the log end when none. */
  lastStableOffset(topic: string, partition: number): number;
  /** The aborted transactions holding offsets in [from, to], for read_committed fetches. */
  abortedTransactions(topic: string, partition: number, from: number, to: number): AbortedTransaction[];
  producers(topic: string, partition: number): ProducerEntry[];
  /** Forgets producers idle longer than `maxIdleMs` without an open transaction. */
  expireProducers(now: number, maxIdleMs: number): void;
  /** A producer id never given before in this cluster. */
  allocateProducerId(): number;
  transactions(): TransactionRecord[];
  saveTransaction(record: TransactionRecord): void;
  /** Forgets a transactional id (its `transactional.id.expiration.ms` passed). */
  deleteTransaction(transactionalId: string): void;
  /** Writes a transaction's markers, its offsets and its state in one durable transaction. */
  endTransaction(end: TransactionEnd, appendTime: number): Promise<void>;
  /** The first offset whose batch's max timestamp is at or after `timestamp`; the log end when none. */
  offsetForTimestamp(topic: string, partition: number, timestamp: number): number;
  /** The first record with the largest timestamp (ListOffsets MAX_TIMESTAMP); undefined for an empty log. */
  maxTimestampRecord(topic: string, partition: number): { offset: number; timestamp: number } | undefined;
  /** When the batch holding `offset` was appended (ms), if it is still stored. */
  appendTimeOf(topic: string, partition: number, offset: number): number | undefined;
  /** Stores a group's offsets durably, in the group commit of the appends of the same turn. */
  commitOffsets(groupId: string, offsets: readonly CommittedOffset[]): Promise<void>;
  committedOffsets(groupId: string): CommittedOffset[];
  groupsWithOffsets(): string[];
  deleteGroupOffsets(groupId: string): void;
  /** OffsetDelete: forgets the group's committed offsets of these partitions of `topic`. */
  deleteCommittedOffsets(groupId: string, topic: string, partitions: readonly number[]): void;
  users(): StreamingUserSpec[];
  saveUser(user: StreamingUserSpec): void;
  deleteUser(name: string): void;
  /** Drops batches older than each delete-policy topic's retention, then the oldest until under `maxBytes`. */
  enforceRetention(now: number, maxBytes: number | null): void;
  /** Keeps, in every compact-policy topic, only the newest record of each key; offsets unchanged. */
  compact(): void;
  totalBytes(): number;
  close(): void;
}

/** The page size of a new log store file (bytes). */
const PAGE_BYTES = 16_384;

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

const messageCount = (batches: readonly BatchHeader[]) =>
  batches.reduce((sum, batch) => sum + batch.lastOffsetDelta + 1, 0);

interface PendingAppend {
  kind: 'append';
  topic: string;
  partition: number;
  batches: BatchHeader[];
  appendTime: number;
  resolve: (result: AppendResult) => void;
  reject: (error: Error) => void;
}

interface PendingEnd {
  kind: 'end';
  end: TransactionEnd;
  appendTime: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface PendingOffsets {
  kind: 'offsets';
  groupId: string;
  offsets: readonly CommittedOffset[];
  resolve: () => void;
  reject: (error: Error) => void;
}

type Pending = PendingAppend | PendingEnd | PendingOffsets;

const producerKey = (topic: string, partition: number, producerId: number) =>
  `${partitionKey(topic, partition)}\u0000${producerId}`;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS topics (
    name TEXT PRIMARY KEY, partitions INTEGER NOT NULL, replicas INTEGER NOT NULL,
    retention_ms INTEGER NOT NULL, cleanup_policy TEXT NOT NULL, created_at TEXT NOT NULL,
    topic_id TEXT, flush_messages INTEGER DEFAULT 1, flush_ms INTEGER);
  CREATE TABLE IF NOT EXISTS partitions (
    topic TEXT NOT NULL, partition INTEGER NOT NULL, log_start_offset INTEGER NOT NULL,
    log_end_offset INTEGER NOT NULL, PRIMARY KEY (topic, partition)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS batches (
    topic TEXT NOT NULL, partition INTEGER NOT NULL, base_offset INTEGER NOT NULL,
    last_offset INTEGER NOT NULL, max_timestamp INTEGER NOT NULL, append_time INTEGER NOT NULL,
    size INTEGER NOT NULL, data BLOB NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS batches_by_offset ON batches (topic, partition, last_offset);
  CREATE TABLE IF NOT EXISTS group_offsets (
    group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
    committed_offset INTEGER NOT NULL, metadata TEXT, commit_time INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, partition)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, spec TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS producer_state (
    topic TEXT NOT NULL, partition INTEGER NOT NULL, producer_id INTEGER NOT NULL,
    producer_epoch INTEGER NOT NULL, batches TEXT NOT NULL, txn_first_offset INTEGER,
    last_timestamp INTEGER NOT NULL, PRIMARY KEY (topic, partition, producer_id)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS aborted_transactions (
    topic TEXT NOT NULL, partition INTEGER NOT NULL, producer_id INTEGER NOT NULL,
    first_offset INTEGER NOT NULL, last_offset INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS aborted_by_offset ON aborted_transactions (topic, partition, last_offset);
  CREATE TABLE IF NOT EXISTS producer_ids (only INTEGER PRIMARY KEY CHECK (only = 0), next INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS transactions (transactional_id TEXT PRIMARY KEY, record TEXT NOT NULL);
`;

interface TopicRow {
  name: string;
  partitions: number;
  replicas: number;
  retention_ms: number;
  cleanup_policy: CleanupPolicy;
  created_at: string;
  topic_id: string | null;
  /** NULL: Long.MAX_VALUE. */
  flush_messages: number | null;
  flush_ms: number | null;
}

interface BatchRow {
  rowid: number;
  base_offset: number;
  last_offset: number;
  data: Buffer;
}

/**
 * The log store in one SQLite file (WAL). Appends, transaction ends and offset commits arriving in
 * the same turn of the event loop are written in one transaction (group commit), `synchronous=
 * NORMAL`: written to the operating system at once, so the records are readable and survive the
 * process being killed. When anything in it must be durable before it is answered (a transaction
 * end, an append to a topic at `flush.messages=1` or one whose partition reaches its
 * `flush.messages`/`flush.ms`), its entries are answered once the WAL is fsynced, which runs off
 * the event loop (`WalSync`) while the next requests are read and the next group is written, as
 * Kafka lets a follower fetch what its leader has not flushed. Otherwise the commit is answered at
 * once and fsynced by a later sync or a WAL checkpoint when the earliest `flush.ms` is due (offset
 * commits: within `OFFSET_COMMIT_FLUSH_MS`).
 */
export class SqliteLogStore implements LogStore {
  private readonly db: Database.Database;
  private readonly state = new Map<string, PartitionState>();
  private readonly topicCache = new Map<string, StoredTopic>();
  /** Per partition, each producer's state there. */
  private readonly producerState = new Map<string, Map<number, ProducerEntry>>();
  private pending: Pending[] = [];
  private flushScheduled = false;
  /** Per partition, the messages committed without an fsync since the last one. */
  private readonly unflushed = new Map<string, Unflushed>();
  private syncTimer: NodeJS.Timeout | undefined;
  private syncDeadline = NEVER;
  private readonly walSync: WalSync;
  private readonly statements;

  constructor(file: string) {
    // Record batches are blobs of up to a megabyte, kept in chains of overflow pages: at 16 KiB a
    // page a read takes a quarter of the page reads it takes at SQLite's 4 KiB, and a group commit
    // a quarter of the WAL frames. It applies to a new file only (an existing one keeps its size).
    ({ db: this.db, walSync: this.walSync } = openSqliteFile(file, { pageBytes: PAGE_BYTES }));
    // Writes outside a group commit (topics, users, transactions) are durable as they return; a
    // group commit decides its own flush (`commit`, `mustFsync`).
    this.db.pragma('synchronous = FULL');
    this.db.exec(SCHEMA);
    this.addTopicIds();
    this.addFlushColumns();
    this.statements = {
      insertBatch: this.db.prepare(
        'INSERT INTO batches (topic, partition, base_offset, last_offset, max_timestamp, append_time, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      upsertPartition: this.db.prepare(
        'INSERT INTO partitions (topic, partition, log_start_offset, log_end_offset) VALUES (?, ?, ?, ?) ON CONFLICT (topic, partition) DO UPDATE SET log_start_offset = excluded.log_start_offset, log_end_offset = excluded.log_end_offset',
      ),
      read: this.db.prepare(
        'SELECT base_offset, size, data FROM batches WHERE topic = ? AND partition = ? AND last_offset >= ? ORDER BY last_offset',
      ),
      firstBatchAt: this.db.prepare(
        'SELECT base_offset, append_time FROM batches WHERE topic = ? AND partition = ? AND last_offset >= ? ORDER BY last_offset LIMIT 1',
      ),
      upsertProducer: this.db.prepare(
        'INSERT INTO producer_state (topic, partition, producer_id, producer_epoch, batches, txn_first_offset, last_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (topic, partition, producer_id) DO UPDATE SET producer_epoch = excluded.producer_epoch, batches = excluded.batches, txn_first_offset = excluded.txn_first_offset, last_timestamp = excluded.last_timestamp',
      ),
      insertAborted: this.db.prepare(
        'INSERT INTO aborted_transactions (topic, partition, producer_id, first_offset, last_offset) VALUES (?, ?, ?, ?, ?)',
      ),
      aborted: this.db.prepare(
        'SELECT producer_id, first_offset FROM aborted_transactions WHERE topic = ? AND partition = ? AND last_offset >= ? AND first_offset <= ? ORDER BY first_offset',
      ),
      upsertOffset: this.db.prepare(
        'INSERT INTO group_offsets (group_id, topic, partition, committed_offset, metadata, commit_time) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (group_id, topic, partition) DO UPDATE SET committed_offset = excluded.committed_offset, metadata = excluded.metadata, commit_time = excluded.commit_time',
      ),
      saveTransaction: this.db.prepare(
        'INSERT INTO transactions (transactional_id, record) VALUES (?, ?) ON CONFLICT (transactional_id) DO UPDATE SET record = excluded.record',
      ),
    };
    this.load();
  }

  /** Stores made before flush settings gain the columns, every topic durable as it was then. */
  private addFlushColumns(): void {
    const columns = this.db.prepare('PRAGMA table_info(topics)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'flush_messages'))
      this.db.exec(
        'ALTER TABLE topics ADD COLUMN flush_messages INTEGER DEFAULT 1; ALTER TABLE topics ADD COLUMN flush_ms INTEGER',
      );
  }

  /** Stores made before topic ids gain the column, and each topic an id, once. */
  private addTopicIds(): void {
    const columns = this.db.prepare('PRAGMA table_info(topics)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'topic_id'))
      this.db.exec('ALTER TABLE topics ADD COLUMN topic_id TEXT');
    const missing = this.db
      .prepare('SELECT name FROM topics WHERE topic_id IS NULL')
      .pluck()
      .all() as string[];
    const assign = this.db.prepare('UPDATE topics SET topic_id = ? WHERE name = ?');
    this.db.transaction(() => {
      for (const name of missing) assign.run(randomUUID(), name);
    })();
  }

  private load(): void {
    for (const row of this.db.prepare('SELECT * FROM topics').all() as TopicRow[]) {
      this.topicCache.set(row.name, rowToTopic(row));
    }
    const partitions = this.db.prepare('SELECT * FROM partitions').all() as {
      topic: string;
      partition: number;
      log_start_offset: number;
      log_end_offset: number;
    }[];
    const sizes = new Map<string, number>();
    for (const row of this.db
      .prepare('SELECT topic, partition, SUM(size) AS size FROM batches GROUP BY topic, partition')
      .all() as { topic: string; partition: number; size: number }[]) {
      sizes.set(partitionKey(row.topic, row.partition), row.size);
    }
    for (const row of partitions) {
      const key = partitionKey(row.topic, row.partition);
      this.state.set(key, {
        logStartOffset: row.log_start_offset,
        logEndOffset: row.log_end_offset,
        sizeBytes: sizes.get(key) ?? 0,
      });
    }
    for (const row of this.db.prepare('SELECT * FROM producer_state').all() as {
      topic: string;
      partition: number;
      producer_id: number;
      producer_epoch: number;
      batches: string;
      txn_first_offset: number | null;
      last_timestamp: number;
    }[]) {
      this.setProducer(row.topic, row.partition, {
        producerId: row.producer_id,
        producerEpoch: row.producer_epoch,
        batches: JSON.parse(row.batches) as ProducerEntry['batches'],
        txnFirstOffset: row.txn_first_offset,
        lastTimestamp: row.last_timestamp,
      });
    }
  }

  private setProducer(topic: string, partition: number, entry: ProducerEntry): void {
    const key = partitionKey(topic, partition);
    const entries = this.producerState.get(key) ?? new Map<number, ProducerEntry>();
    entries.set(entry.producerId, entry);
    this.producerState.set(key, entries);
  }

  topics(): StoredTopic[] {
    return [...this.topicCache.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  topic(name: string): StoredTopic | undefined {
    return this.topicCache.get(name);
  }

  createTopic(spec: NewTopic): StoredTopic {
    const topic: StoredTopic = { ...DURABLE, ...spec, topicId: spec.topicId ?? randomUUID() };
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT INTO topics (name, partitions, replicas, retention_ms, cleanup_policy, created_at, topic_id, flush_messages, flush_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          topic.name,
          topic.partitions,
          topic.replicas,
          topic.retentionMs,
          topic.cleanupPolicy,
          topic.createdAt,
          topic.topicId,
          flushColumn(topic.flushMessages),
          flushColumn(topic.flushMs),
        );
      this.db.prepare('DELETE FROM batches WHERE topic = ?').run(topic.name);
      this.db.prepare('DELETE FROM partitions WHERE topic = ?').run(topic.name);
      this.forgetProducersOf(topic.name);
      for (let partition = 0; partition < topic.partitions; partition++) {
        this.statements.upsertPartition.run(topic.name, partition, 0, 0);
      }
    })();
    this.topicCache.set(topic.name, { ...topic });
    for (let partition = 0; partition < topic.partitions; partition++) {
      this.state.set(partitionKey(topic.name, partition), {
        logStartOffset: 0,
        logEndOffset: 0,
        sizeBytes: 0,
      });
    }
    return topic;
  }

  deleteTopic(name: string): void {
    const topic = this.topicCache.get(name);
    if (!topic) return;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM topics WHERE name = ?').run(name);
      this.db.prepare('DELETE FROM partitions WHERE topic = ?').run(name);
      this.db.prepare('DELETE FROM batches WHERE topic = ?').run(name);
      this.db.prepare('DELETE FROM group_offsets WHERE topic = ?').run(name);
      this.forgetProducersOf(name);
    })();
    this.topicCache.delete(name);
    for (let partition = 0; partition < topic.partitions; partition++)
      this.state.delete(partitionKey(name, partition));
  }

  private forgetProducersOf(topic: string): void {
    this.db.prepare('DELETE FROM producer_state WHERE topic = ?').run(topic);
    this.db.prepare('DELETE FROM aborted_transactions WHERE topic = ?').run(topic);
    for (const key of this.producerState.keys()) {
      if (key.startsWith(`${topic}\u0000`)) this.producerState.delete(key);
    }
  }

  setPartitionCount(name: string, partitions: number): void {
    const topic = this.topicCache.get(name);
    if (!topic || partitions <= topic.partitions) return;
    this.db.transaction(() => {
      this.db.prepare('UPDATE topics SET partitions = ? WHERE name = ?').run(partitions, name);
      for (let partition = topic.partitions; partition < partitions; partition++) {
        this.statements.upsertPartition.run(name, partition, 0, 0);
      }
    })();
    for (let partition = topic.partitions; partition < partitions; partition++) {
      this.state.set(partitionKey(name, partition), { logStartOffset: 0, logEndOffset: 0, sizeBytes: 0 });
    }
    topic.partitions = partitions;
  }

  updateTopic(name: string, change: TopicUpdate): void {
    const topic = this.topicCache.get(name);
    if (!topic) return;
    const next = { ...topic, ...change };
    this.db
      .prepare(
        'UPDATE topics SET retention_ms = ?, cleanup_policy = ?, flush_messages = ?, flush_ms = ? WHERE name = ?',
      )
      .run(
        next.retentionMs,
        next.cleanupPolicy,
        flushColumn(next.flushMessages),
        flushColumn(next.flushMs),
        name,
      );
    this.topicCache.set(name, next);
  }

  partition(topic: string, partition: number): PartitionState | undefined {
    return this.state.get(partitionKey(topic, partition));
  }

  deleteRecordsBefore(topic: string, partition: number, offset: number): PartitionState | undefined {
    this.truncateBefore(topic, partition, offset);
    return this.partition(topic, partition);
  }

  append(
    topic: string,
    partition: number,
    batches: BatchHeader[],
    appendTime: number,
  ): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.enqueue({ kind: 'append', topic, partition, batches, appendTime, resolve, reject });
    });
  }

  endTransaction(end: TransactionEnd, appendTime: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.enqueue({ kind: 'end', end, appendTime, resolve, reject });
    });
  }

  commitOffsets(groupId: string, offsets: readonly CommittedOffset[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.enqueue({ kind: 'offsets', groupId, offsets, resolve, reject });
    });
  }

  private enqueue(entry: Pending): void {
    this.pending.push(entry);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Writes every pending entry in one transaction, fsynced when one of them needs it, then answers
   * them all. Partition and producer state change in copies that replace the live ones only after
   * the commit.
   */
  private flush(): void {
    this.flushScheduled = false;
    const entries = this.pending;
    this.pending = [];
    const now = Date.now();
    const durable = this.mustFsync(entries, now);
    const write = new PendingWrite(this.state, this.producerState);
    const results: (AppendResult | Error | undefined)[] = [];
    try {
      this.commit(() => {
        for (const entry of entries) results.push(this.writeEntry(write, entry));
        for (const [key, partitionState] of write.partitions) {
          const [topic = '', partition = '0'] = key.split('\u0000');
          this.statements.upsertPartition.run(
            topic,
            Number(partition),
            partitionState.logStartOffset,
            partitionState.logEndOffset,
          );
        }
        for (const { topic, partition, entry } of write.producers.values()) {
          this.statements.upsertProducer.run(
            topic,
            partition,
            entry.producerId,
            entry.producerEpoch,
            JSON.stringify(entry.batches),
            entry.txnFirstOffset,
            entry.lastTimestamp,
          );
        }
      });
    } catch (error) {
      for (const entry of entries) entry.reject(error as Error);
      return;
    }
    if (durable) this.flushed();
    else this.countUnflushed(entries, now);
    for (const [key, partitionState] of write.partitions) this.state.set(key, partitionState);
    for (const { topic, partition, entry } of write.producers.values())
      this.setProducer(topic, partition, entry);
    const answer = (failure?: Error) =>
      entries.forEach((entry, index) => {
        const result = failure ?? results[index];
        if (result instanceof Error) entry.reject(result);
        else if (entry.kind === 'append') entry.resolve(result!);
        else entry.resolve();
      });
    if (durable) this.walSync.afterCommit(answer);
    else answer();
  }

  private writeEntry(write: PendingWrite, entry: Pending): AppendResult | Error | undefined {
    if (entry.kind === 'append') return this.writeAppend(write, entry);
    if (entry.kind === 'end') return this.writeEnd(write, entry);
    this.writeOffsets(entry.groupId, entry.offsets);
    return undefined;
  }

  /** The flush policy of a topic; a topic gone meanwhile is durable (its append fails anyway). */
  private flushPolicyOf(topic: string): FlushPolicy {
    return this.topicCache.get(topic) ?? DURABLE;
  }

  /**
   * Whether the group commit must be fsynced before its entries are answered: transaction ends
   * always, appends when their partition's flush is due, offset commits never (see
   * `OFFSET_COMMIT_FLUSH_MS`).
   */
  private mustFsync(entries: readonly Pending[], now: number): boolean {
    return entries.some(
      (entry) =>
        entry.kind === 'end' ||
        (entry.kind === 'append' &&
          flushDue(
            this.flushPolicyOf(entry.topic),
            this.unflushed.get(partitionKey(entry.topic, entry.partition)),
            messageCount(entry.batches),
            now,
          )),
    );
  }

  /**
   * Runs `write` in one transaction written to the operating system, not fsynced (the caller
   * decides when it must be); every other write of the store (topics, users, transactions) stays
   * `synchronous=FULL`.
   */
  private commit(write: () => void): void {
    this.db.pragma('synchronous = NORMAL');
    try {
      this.db.transaction(write)();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Counts what a NORMAL commit left unflushed, and has it fsynced by its earliest `flush.ms` (its
   * offset commits within `OFFSET_COMMIT_FLUSH_MS`).
   */
  private countUnflushed(entries: readonly Pending[], now: number): void {
    for (const entry of entries) {
      if (entry.kind === 'offsets') this.fsyncBy(now + OFFSET_COMMIT_FLUSH_MS);
      if (entry.kind !== 'append') continue;
      const key = partitionKey(entry.topic, entry.partition);
      const before = this.unflushed.get(key);
      const unflushed = {
        messages: (before?.messages ?? 0) + messageCount(entry.batches),
        since: before?.since ?? now,
      };
      this.unflushed.set(key, unflushed);
      this.fsyncBy(flushDeadline(this.flushPolicyOf(entry.topic), unflushed));
    }
  }

  private fsyncBy(deadline: number): void {
    if (deadline >= this.syncDeadline || deadline === NEVER) return;
    clearTimeout(this.syncTimer);
    this.syncDeadline = deadline;
    this.syncTimer = setTimeout(() => this.fsyncNow(), Math.max(0, deadline - Date.now()));
    this.syncTimer.unref();
  }

  /** A checkpoint fsyncs the WAL before copying it into the database: every commit is durable. */
  private fsyncNow(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
    this.flushed();
  }

  private flushed(): void {
    this.unflushed.clear();
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    this.syncDeadline = NEVER;
  }

  /**
   * One partition's batches: each idempotent producer's batch is checked against its state first;
   * a refused one fails the whole append, a retried one answers with its first offset.
   */
  private writeAppend(write: PendingWrite, entry: PendingAppend): AppendResult | Error {
    const current = write.partition(entry.topic, entry.partition);
    if (!current) return new Error(`unknown partition ${entry.topic}-${entry.partition}`);
    const updated = { ...current };
    const producers = new Map<number, ProducerEntry | undefined>();
    let offset = updated.logEndOffset;
    for (const batch of entry.batches) {
      if (batch.producerId < 0) {
        offset += batch.lastOffsetDelta + 1;
        continue;
      }
      const known = producers.has(batch.producerId)
        ? producers.get(batch.producerId)
        : write.producer(entry.topic, entry.partition, batch.producerId);
      const verdict = checkSequence(known, batch);
      if (verdict.kind === 'duplicate') {
        return {
          errorCode: ErrorCode.NONE,
          baseOffset: verdict.firstOffset,
          logStartOffset: current.logStartOffset,
        };
      }
      if (verdict.kind === 'refuse') {
        return { errorCode: verdict.errorCode, baseOffset: -1, logStartOffset: current.logStartOffset };
      }
      producers.set(batch.producerId, afterAppend(known, batch, offset, entry.appendTime));
      offset += batch.lastOffsetDelta + 1;
    }
    const baseOffset = updated.logEndOffset;
    for (const batch of entry.batches) {
      const base = updated.logEndOffset;
      const last = base + batch.lastOffsetDelta;
      setBaseOffset(batch.bytes, base);
      this.statements.insertBatch.run(
        entry.topic,
        entry.partition,
        base,
        last,
        batch.maxTimestamp,
        entry.appendTime,
        batch.bytes.length,
        batch.bytes,
      );
      updated.logEndOffset = last + 1;
      updated.sizeBytes += batch.bytes.length;
    }
    write.setPartition(entry.topic, entry.partition, updated);
    for (const producer of producers.values()) write.setProducer(entry.topic, entry.partition, producer!);
    return { errorCode: ErrorCode.NONE, baseOffset, logStartOffset: updated.logStartOffset };
  }

  /** A marker on each partition (an abort also indexed for read_committed), the offsets, the state. */
  private writeEnd(write: PendingWrite, pending: PendingEnd): undefined {
    const { end, appendTime } = pending;
    for (const { topic, partition } of end.partitions) {
      const current = write.partition(topic, partition);
      if (!current) continue;
      const marker = encodeControlBatch(end.producerId, end.producerEpoch, end.commit, appendTime);
      const offset = current.logEndOffset;
      setBaseOffset(marker, offset);
      this.statements.insertBatch.run(
        topic,
        partition,
        offset,
        offset,
        appendTime,
        appendTime,
        marker.length,
        marker,
      );
      write.setPartition(topic, partition, {
        ...current,
        logEndOffset: offset + 1,
        sizeBytes: current.sizeBytes + marker.length,
      });
      const producer = write.producer(topic, partition, end.producerId);
      if (!end.commit && producer?.txnFirstOffset != null) {
        this.statements.insertAborted.run(topic, partition, end.producerId, producer.txnFirstOffset, offset);
      }
      write.setProducer(
        topic,
        partition,
        afterMarker(producer, end.producerId, end.producerEpoch, appendTime),
      );
    }
    if (end.commit) for (const { groupId, offsets } of end.offsets) this.writeOffsets(groupId, offsets);
    this.statements.saveTransaction.run(end.record.transactionalId, JSON.stringify(end.record));
    return undefined;
  }

  lastStableOffset(topic: string, partition: number): number {
    const end = this.state.get(partitionKey(topic, partition))?.logEndOffset ?? 0;
    let stable = end;
    for (const entry of this.producerState.get(partitionKey(topic, partition))?.values() ?? []) {
      if (entry.txnFirstOffset !== null) stable = Math.min(stable, entry.txnFirstOffset);
    }
    return stable;
  }

  abortedTransactions(topic: string, partition: number, from: number, to: number): AbortedTransaction[] {
    return (
      this.statements.aborted.all(topic, partition, from, to) as {
        producer_id: number;
        first_offset: number;
      }[]
    ).map((row) => ({ producerId: row.producer_id, firstOffset: row.first_offset }));
  }

  producers(topic: string, partition: number): ProducerEntry[] {
    return [...(this.producerState.get(partitionKey(topic, partition))?.values() ?? [])];
  }

  expireProducers(now: number, maxIdleMs: number): void {
    const before = now - maxIdleMs;
    this.db
      .prepare('DELETE FROM producer_state WHERE last_timestamp < ? AND txn_first_offset IS NULL')
      .run(before);
    for (const entries of this.producerState.values()) {
      for (const [producerId, entry] of entries) {
        if (entry.lastTimestamp < before && entry.txnFirstOffset === null) entries.delete(producerId);
      }
    }
  }

  allocateProducerId(): number {
    return this.db
      .prepare(
        'INSERT INTO producer_ids (only, next) VALUES (0, 1) ON CONFLICT (only) DO UPDATE SET next = next + 1 RETURNING next - 1',
      )
      .pluck()
      .get() as number;
  }

  transactions(): TransactionRecord[] {
    return (
      this.db.prepare('SELECT record FROM transactions ORDER BY transactional_id').pluck().all() as string[]
    ).map((record) => JSON.parse(record) as TransactionRecord);
  }

  saveTransaction(record: TransactionRecord): void {
    this.statements.saveTransaction.run(record.transactionalId, JSON.stringify(record));
  }

  deleteTransaction(transactionalId: string): void {
    this.db.prepare('DELETE FROM transactions WHERE transactional_id = ?').run(transactionalId);
  }

  /**
   * One range read per call: the statement steps lazily, so rows are copied out of SQLite only up
   * to the byte budget (the first one past it at most) and the bound; each batch is returned as
   * stored, its offsets assigned on append.
   */
  read(topic: string, partition: number, offset: number, maxBytes: number, maxOffset = Infinity): Buffer[] {
    const batches: Buffer[] = [];
    let bytes = 0;
    for (const row of this.statements.read.iterate(topic, partition, offset) as Iterable<{
      base_offset: number;
      size: number;
      data: Buffer;
    }>) {
      if (row.base_offset >= maxOffset) break;
      if (batches.length > 0 && bytes + row.size > maxBytes) break;
      batches.push(row.data);
      bytes += row.size;
      if (bytes >= maxBytes) break;
    }
    return batches;
  }

  offsetForTimestamp(topic: string, partition: number, timestamp: number): number {
    const state = this.partition(topic, partition);
    const row = this.db
      .prepare(
        'SELECT base_offset, data FROM batches WHERE topic = ? AND partition = ? AND max_timestamp >= ? ORDER BY last_offset LIMIT 1',
      )
      .get(topic, partition, timestamp) as { base_offset: number; data: Buffer } | undefined;
    if (!row) return state?.logEndOffset ?? 0;
    if (batchCompression(row.data) !== 0) return row.base_offset;
    const first = Number(row.data.readBigInt64BE(27));
    const record = decodeRecords(row.data).find((candidate) => first + candidate.timestampDelta >= timestamp);
    return row.base_offset + (record?.offsetDelta ?? 0);
  }

  maxTimestampRecord(topic: string, partition: number): { offset: number; timestamp: number } | undefined {
    const row = this.db
      .prepare(
        'SELECT base_offset, max_timestamp, data FROM batches WHERE topic = ? AND partition = ? ORDER BY max_timestamp DESC, last_offset LIMIT 1',
      )
      .get(topic, partition) as { base_offset: number; max_timestamp: number; data: Buffer } | undefined;
    if (!row) return undefined;
    if (batchCompression(row.data) !== 0)
      return { offset: lastOffsetOf(row.data), timestamp: row.max_timestamp };
    const first = Number(row.data.readBigInt64BE(27));
    const record = decodeRecords(row.data).find(
      (candidate) => first + candidate.timestampDelta === row.max_timestamp,
    );
    return { offset: row.base_offset + (record?.offsetDelta ?? 0), timestamp: row.max_timestamp };
  }

  appendTimeOf(topic: string, partition: number, offset: number): number | undefined {
    const row = this.statements.firstBatchAt.get(topic, partition, offset) as
      { append_time: number } | undefined;
    return row?.append_time;
  }

  private writeOffsets(groupId: string, offsets: readonly CommittedOffset[]): void {
    for (const entry of offsets) {
      this.statements.upsertOffset.run(
        groupId,
        entry.topic,
        entry.partition,
        entry.offset,
        entry.metadata,
        entry.commitTime,
      );
    }
  }

  committedOffsets(groupId: string): CommittedOffset[] {
    const rows = this.db
      .prepare(
        'SELECT topic, partition, committed_offset, metadata, commit_time FROM group_offsets WHERE group_id = ? ORDER BY topic, partition',
      )
      .all(groupId) as {
      topic: string;
      partition: number;
      committed_offset: number;
      metadata: string | null;
      commit_time: number;
    }[];
    return rows.map((row) => ({
      topic: row.topic,
      partition: row.partition,
      offset: row.committed_offset,
      metadata: row.metadata,
      commitTime: row.commit_time,
    }));
  }

  groupsWithOffsets(): string[] {
    return this.db
      .prepare('SELECT DISTINCT group_id FROM group_offsets ORDER BY group_id')
      .pluck()
      .all() as string[];
  }

  deleteGroupOffsets(groupId: string): void {
    this.db.prepare('DELETE FROM group_offsets WHERE group_id = ?').run(groupId);
  }

  deleteCommittedOffsets(groupId: string, topic: string, partitions: readonly number[]): void {
    const remove = this.db.prepare(
      'DELETE FROM group_offsets WHERE group_id = ? AND topic = ? AND partition = ?',
    );
    this.db.transaction(() => {
      for (const partition of partitions) remove.run(groupId, topic, partition);
    })();
  }

  users(): StreamingUserSpec[] {
    return (this.db.prepare('SELECT spec FROM users ORDER BY name').pluck().all() as string[]).map(
      (spec) => JSON.parse(spec) as StreamingUserSpec,
    );
  }

  saveUser(user: StreamingUserSpec): void {
    this.db
      .prepare(
        'INSERT INTO users (name, spec) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec',
      )
      .run(user.name, JSON.stringify(user));
  }

  deleteUser(name: string): void {
    this.db.prepare('DELETE FROM users WHERE name = ?').run(name);
  }

  totalBytes(): number {
    let total = 0;
    for (const state of this.state.values()) total += state.sizeBytes;
    return total;
  }

  enforceRetention(now: number, maxBytes: number | null): void {
    const deletable = this.topics().filter((topic) => topic.cleanupPolicy === 'delete');
    for (const topic of deletable) {
      if (topic.retentionMs < 0) continue;
      for (let partition = 0; partition < topic.partitions; partition++) {
        const keep = this.db
          .prepare(
            'SELECT base_offset FROM batches WHERE topic = ? AND partition = ? AND max_timestamp >= ? ORDER BY last_offset LIMIT 1',
          )
          .pluck()
          .get(topic.name, partition, now - topic.retentionMs) as number | undefined;
        this.truncateBefore(topic.name, partition, keep);
      }
    }
    if (maxBytes === null) return;
    while (this.totalBytes() > maxBytes) {
      const oldest = this.db
        .prepare(
          `SELECT topic, partition, last_offset FROM batches WHERE topic IN (SELECT name FROM topics WHERE cleanup_policy = 'delete') ORDER BY append_time, last_offset LIMIT 1`,
        )
        .get() as { topic: string; partition: number; last_offset: number } | undefined;
      if (!oldest) return;
      const next = this.db
        .prepare(
          'SELECT base_offset FROM batches WHERE topic = ? AND partition = ? AND last_offset > ? ORDER BY last_offset LIMIT 1',
        )
        .pluck()
        .get(oldest.topic, oldest.partition, oldest.last_offset) as number | undefined;
      this.truncateBefore(oldest.topic, oldest.partition, next ?? oldest.last_offset + 1);
    }
  }

  /** Drops every batch below `offset` (all of them when undefined) and advances the log start. */
  private truncateBefore(topic: string, partition: number, offset: number | undefined): void {
    const key = partitionKey(topic, partition);
    const state = this.state.get(key);
    if (!state) return;
    const start = Math.min(offset ?? state.logEndOffset, state.logEndOffset);
    if (start <= state.logStartOffset) return;
    const freed = this.db.transaction(() => {
      const bytes = this.db
        .prepare(
          'SELECT COALESCE(SUM(size), 0) FROM batches WHERE topic = ? AND partition = ? AND last_offset < ?',
        )
        .pluck()
        .get(topic, partition, start) as number;
      this.db
        .prepare('DELETE FROM batches WHERE topic = ? AND partition = ? AND last_offset < ?')
        .run(topic, partition, start);
      this.db
        .prepare('DELETE FROM aborted_transactions WHERE topic = ? AND partition = ? AND last_offset < ?')
        .run(topic, partition, start);
      this.statements.upsertPartition.run(topic, partition, start, state.logEndOffset);
      return bytes;
    })();
    this.state.set(key, { ...state, logStartOffset: start, sizeBytes: state.sizeBytes - freed });
  }

  compact(): void {
    for (const topic of this.topics()) {
      if (topic.cleanupPolicy !== 'compact') continue;
      for (let partition = 0; partition < topic.partitions; partition++)
        this.compactPartition(topic.name, partition);
    }
  }

  /**
   * Two passes over the partition: the newest offset of every key, then each batch rewritten
   * without the records a newer one of the same key supersedes. Compressed batches are left as
   * they are (their keys unread), and so are transaction markers; records without a key are kept.
   */
  private compactPartition(topic: string, partition: number): void {
    const rows = this.db
      .prepare(
        'SELECT rowid, base_offset, last_offset, data FROM batches WHERE topic = ? AND partition = ? ORDER BY last_offset',
      )
      .all(topic, partition) as BatchRow[];
    const newest = new Map<string, number>();
    const decoded = new Map<number, DecodedRecord[]>();
    for (const row of rows) {
      if (batchCompression(row.data) !== 0 || isControlBatch(row.data)) continue;
      const records = decodeRecords(row.data);
      decoded.set(row.rowid, records);
      for (const record of records) {
        if (record.key) newest.set(record.key.toString('latin1'), row.base_offset + record.offsetDelta);
      }
    }
    const update = this.db.prepare('UPDATE batches SET data = ?, size = ? WHERE rowid = ?');
    const remove = this.db.prepare('DELETE FROM batches WHERE rowid = ?');
    let freed = 0;
    this.db.transaction(() => {
      for (const row of rows) {
        const records = decoded.get(row.rowid);
        if (!records) continue;
        const kept = records.filter(
          (record) =>
            !record.key || newest.get(record.key.toString('latin1')) === row.base_offset + record.offsetDelta,
        );
        if (kept.length === records.length) continue;
        if (kept.length === 0) {
          remove.run(row.rowid);
          freed += row.data.length;
        } else {
          const rebuilt = rebuildBatch(row.data, kept);
          update.run(rebuilt, rebuilt.length, row.rowid);
          freed += row.data.length - rebuilt.length;
        }
      }
    })();
    const key = partitionKey(topic, partition);
    const state = this.state.get(key);
    if (state && freed > 0) this.state.set(key, { ...state, sizeBytes: state.sizeBytes - freed });
  }

  close(): void {
    clearTimeout(this.syncTimer);
    // Closing checkpoints the WAL into the database file and syncs it: what waited for a flush is
    // durable, though its answer (to a client the broker is closing on) may be the flush's error.
    this.db.close();
    this.walSync.close();
  }
}

function rowToTopic(row: TopicRow): StoredTopic {
  return {
    name: row.name,
    partitions: row.partitions,
    replicas: row.replicas,
    retentionMs: row.retention_ms,
    cleanupPolicy: row.cleanup_policy,
    createdAt: row.created_at,
    topicId: row.topic_id!,
    flushMessages: row.flush_messages ?? NEVER,
    flushMs: row.flush_ms ?? NEVER,
  };
}

/** A flush setting as a column holds it: NULL for Long.MAX_VALUE. */
const flushColumn = (value: number): number | null => (value === NEVER ? null : value);

/** The partition and producer states a group commit changes, over the live ones until it commits. */
class PendingWrite {
  readonly partitions = new Map<string, PartitionState>();
  readonly producers = new Map<string, { topic: string; partition: number; entry: ProducerEntry }>();

  constructor(
    private readonly livePartitions: ReadonlyMap<string, PartitionState>,
    private readonly liveProducers: ReadonlyMap<string, ReadonlyMap<number, ProducerEntry>>,
  ) {}

  partition(topic: string, partition: number): PartitionState | undefined {
    const key = partitionKey(topic, partition);
    return this.partitions.get(key) ?? this.livePartitions.get(key);
  }

  setPartition(topic: string, partition: number, state: PartitionState): void {
    this.partitions.set(partitionKey(topic, partition), state);
  }

  producer(topic: string, partition: number, producerId: number): ProducerEntry | undefined {
    return (
      this.producers.get(producerKey(topic, partition, producerId))?.entry ??
      this.liveProducers.get(partitionKey(topic, partition))?.get(producerId)
    );
  }

  setProducer(topic: string, partition: number, entry: ProducerEntry): void {
    this.producers.set(producerKey(topic, partition, entry.producerId), { topic, partition, entry });
  }
}
