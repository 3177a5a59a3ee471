import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../../observability/clock.js';
import { ErrorCode } from './errors.js';
import type { CommittedOffset, LogStore, TransactionRecord } from './log-store.js';

/** Kafka's `transaction.max.timeout.ms` default: a producer may not ask for a longer timeout. */
export const MAX_TRANSACTION_TIMEOUT_MS = 900_000;

/** Kafka's `transactional.id.expiration.ms` default: a transactional id idle this long is forgotten. */
export const TRANSACTIONAL_ID_EXPIRATION_MS = 604_800_000;

/** The highest epoch a producer id gets before the coordinator gives the transactional id a new one. */
const LAST_EPOCH = 32_766;

export interface ProducerIdAndEpoch {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** What the coordinator tells the rest of the broker when a transaction ends. */
export interface TransactionListener {
  /** Markers were written: read_committed fetches waiting on these partitions may go on. */
  markersWritten(partitions: readonly TopicPartition[]): void;
  offsetsCommitted(groupId: string, offsets: readonly CommittedOffset[]): void;
}

/**
 * The transaction coordinator of a cluster, as Kafka's: it gives producer ids, keeps each
 * transactional id's producer id, epoch, open transaction's partitions and groups (durably, in
 * the log store), fences older epochs, and ends a transaction by writing commit or abort markers
 * to its partitions together with the offsets it commits. A transaction open longer than its
 * timeout is aborted and its producer fenced (the epoch moves on), as are transactions the
 * broker finds open when it starts: the offsets they meant to commit were only in memory.
 */
export class TransactionCoordinator {
  private readonly records = new Map<string, TransactionRecord>();
  /** Offsets a transaction commits when it does (TxnOffsetCommit), per group. */
  private readonly pendingOffsets = new Map<string, Map<string, CommittedOffset[]>>();
  private readonly timers = new Map<string, TimerHandle>();

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly listener: TransactionListener,
    private readonly transactionalIdExpirationMs = TRANSACTIONAL_ID_EXPIRATION_MS,
  ) {
    for (const record of store.transactions()) this.remember(record);
  }

  /**
   * Forgets, as Kafka's coordinator does, each transactional id with no transaction open or
   * ending whose producer has not been heard from for `transactional.id.expiration.ms`: tools no
   * longer list it, its producer id no longer maps to it (a producer still using that id gets
   * INVALID_PRODUCER_ID_MAPPING) and its next InitProducerId starts over with a new producer id.
   */
  expireTransactionalIds(): string[] {
    const before = this.clock.now().getTime() - this.transactionalIdExpirationMs;
    const expired = [...this.records.values()].filter(
      (record) =>
        (record.state === 'Empty' || record.state === 'CompleteCommit' || record.state === 'CompleteAbort') &&
        record.updatedAt <= before,
    );
    for (const record of expired) {
      this.store.deleteTransaction(record.transactionalId);
      this.records.delete(record.transactionalId);
      this.pendingOffsets.delete(record.transactionalId);
    }
    if (expired.length > 0)
      this.logger.info(
        {
          transactionalIds: expired.map((record) => record.transactionalId),
          expirationMs: this.transactionalIdExpirationMs,
        },
        'transactional ids expired',
      );
    return expired.map((record) => record.transactionalId);
  }

  /** Aborts, fencing their producers, the transactions a stopped broker left open. */
  start(): void {
    for (const record of this.records.values()) {
      if (record.state === 'Ongoing') void this.end(record, false, true).catch(() => undefined);
    }
  }

  close(): void {
    for (const timer of this.timers.values()) this.clock.clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * A new idempotent producer id; with a transactional id, its producer id and the next epoch.
   * A producer naming the id and epoch it had must name the current ones (KIP-360).
   */
  async initProducerId(
    transactionalId: string | null,
    timeoutMs: number,
    expected?: { producerId: number; producerEpoch: number },
  ): Promise<ProducerIdAndEpoch> {
    const failed = (errorCode: number) => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (transactionalId === null) {
      return { errorCode: ErrorCode.NONE, producerId: this.store.allocateProducerId(), producerEpoch: 0 };
    }
    if (transactionalId === '') return failed(ErrorCode.INVALID_REQUEST);
    if (timeoutMs <= 0 || timeoutMs > MAX_TRANSACTION_TIMEOUT_MS)
      return failed(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    let record = this.records.get(transactionalId);
    if (
      record &&
      expected &&
      (expected.producerId !== record.producerId ||
        (expected.producerEpoch !== -1 && expected.producerEpoch !== record.producerEpoch))
    ) {
      return failed(ErrorCode.PRODUCER_FENCED);
    }
    if (record?.state === 'PrepareCommit' || record?.state === 'PrepareAbort') {
      return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
    if (record?.state === 'Ongoing') {
      await this.end(record, false, true);
      record = this.records.get(transactionalId)!;
    }
    const rotate = !record || record.producerEpoch >= LAST_EPOCH;
    const next: TransactionRecord = {
      transactionalId,
      producerId: rotate ? this.store.allocateProducerId() : record!.producerId,
      producerEpoch: rotate ? 0 : record!.producerEpoch + 1,
      timeoutMs,
      state: 'Empty',
      partitions: [],
      groups: [],
      startedAt: -1,
      updatedAt: this.clock.now().getTime(),
    };
    this.store.saveTransaction(next);
    this.remember(next);
    this.logger.info(
      { transactionalId, producerId: next.producerId, producerEpoch: next.producerEpoch },
      'transactional producer initialized',
    );
    return { errorCode: ErrorCode.NONE, producerId: next.producerId, producerEpoch: next.producerEpoch };
  }

  /** Adds partitions to the producer's transaction, opening it if none is. */
  addPartitions(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitions: readonly TopicPartition[],
  ): number {
    const record = this.records.get(transactionalId);
    const problem = this.producerProblem(record, producerId, producerEpoch);
    if (problem !== ErrorCode.NONE) return problem;
    const known = new Set(record!.partitions.map((entry) => `${entry.topic}\u0000${entry.partition}`));
    const added = partitions.filter((entry) => !known.has(`${entry.topic}\u0000${entry.partition}`));
    if (added.length === 0 && record!.state === 'Ongoing') return ErrorCode.NONE;
    this.open(record!, { partitions: [...record!.partitions, ...added] });
    return ErrorCode.NONE;
  }

  /** Makes the group's offsets part of the transaction (Kafka adds its offsets partition). */
  addOffsets(transactionalId: string, producerId: number, producerEpoch: number, groupId: string): number {
    const record = this.records.get(transactionalId);
    const problem = this.producerProblem(record, producerId, producerEpoch);
    if (problem !== ErrorCode.NONE) return problem;
    if (record!.groups.includes(groupId) && record!.state === 'Ongoing') return ErrorCode.NONE;
    this.open(record!, { groups: [...new Set([...record!.groups, groupId])] });
    return ErrorCode.NONE;
  }

  /** Keeps offsets to commit with the transaction; its group must have been added to it. */
  commitOffsets(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    groupId: string,
    offsets: readonly CommittedOffset[],
  ): number {
    const record = this.records.get(transactionalId);
    const problem = this.producerProblem(record, producerId, producerEpoch);
    if (problem !== ErrorCode.NONE) return problem;
    if (record!.state !== 'Ongoing' || !record!.groups.includes(groupId)) return ErrorCode.INVALID_TXN_STATE;
    const groups = this.pendingOffsets.get(transactionalId) ?? new Map<string, CommittedOffset[]>();
    const kept = new Map(
      (groups.get(groupId) ?? []).map((entry) => [`${entry.topic}\u0000${entry.partition}`, entry]),
    );
    for (const entry of offsets) kept.set(`${entry.topic}\u0000${entry.partition}`, entry);
    groups.set(groupId, [...kept.values()]);
    this.pendingOffsets.set(transactionalId, groups);
    return ErrorCode.NONE;
  }

  /** EndTxn: commits or aborts the open transaction; a retry of the same end is answered NONE. */
  async endTransaction(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
  ): Promise<number> {
    const record = this.records.get(transactionalId);
    if (!record || record.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (record.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    switch (record.state) {
      case 'Ongoing':
        await this.end(record, commit, false);
        return ErrorCode.NONE;
      case 'CompleteCommit':
      case 'CompleteAbort':
        return (record.state === 'CompleteCommit') === commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
      case 'PrepareCommit':
      case 'PrepareAbort':
        return (record.state === 'PrepareCommit') === commit
          ? ErrorCode.CONCURRENT_TRANSACTIONS
          : ErrorCode.INVALID_TXN_STATE;
      default:
        return ErrorCode.INVALID_TXN_STATE;
    }
  }

  /**
   * Whether a transactional batch of this producer may be written to the partition: its epoch is
   * the current one and the partition was added to its open transaction.
   */
  writeProblem(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    target: TopicPartition,
  ): number {
    const record = this.records.get(transactionalId);
    if (!record || record.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (producerEpoch < record.producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    const added = record.partitions.some(
      (entry) => entry.topic === target.topic && entry.partition === target.partition,
    );
    return record.state === 'Ongoing' && added ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
  }

  /**
   * Whether an open transaction holds an offset of the group's partition to commit (KIP-447):
   * until it ends, the committed offset there is not stable.
   */
  hasPendingOffset(groupId: string, topic: string, partition: number): boolean {
    for (const groups of this.pendingOffsets.values()) {
      if (groups.get(groupId)?.some((entry) => entry.topic === topic && entry.partition === partition))
        return true;
    }
    return false;
  }

  describe(transactionalId: string): TransactionRecord | undefined {
    return this.records.get(transactionalId);
  }

  list(): TransactionRecord[] {
    return [...this.records.values()].sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
  }

  private producerProblem(
    record: TransactionRecord | undefined,
    producerId: number,
    producerEpoch: number,
  ): number {
    if (!record || record.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (record.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (record.state === 'PrepareCommit' || record.state === 'PrepareAbort')
      return ErrorCode.CONCURRENT_TRANSACTIONS;
    return ErrorCode.NONE;
  }

  /** Records the transaction open with `change`, starting its timeout when it was not open yet. */
  private open(
    record: TransactionRecord,
    change: Partial<Pick<TransactionRecord, 'partitions' | 'groups'>>,
  ): void {
    const now = this.clock.now().getTime();
    const opening = record.state !== 'Ongoing';
    const next: TransactionRecord = {
      ...record,
      ...(opening ? { partitions: [], groups: [] } : {}),
      ...change,
      state: 'Ongoing',
      startedAt: opening ? now : record.startedAt,
      updatedAt: now,
    };
    this.store.saveTransaction(next);
    this.remember(next);
    if (opening) {
      const timer = this.clock.setTimeout(() => {
        this.timers.delete(record.transactionalId);
        const current = this.records.get(record.transactionalId);
        if (current?.state !== 'Ongoing' || current.startedAt !== next.startedAt) return;
        this.logger.info(
          { transactionalId: record.transactionalId, timeoutMs: record.timeoutMs },
          'transaction timed out: aborting it and fencing its producer',
        );
        void this.end(current, false, true).catch(() => undefined);
      }, next.timeoutMs);
      this.timers.set(record.transactionalId, timer);
    }
  }

  /**
   * Writes the markers (with a bumped epoch when fencing) and the offsets, then records the
   * transaction complete. While the write is under way the transaction is Prepare*.
   */
  private async end(record: TransactionRecord, commit: boolean, fence: boolean): Promise<void> {
    const timer = this.timers.get(record.transactionalId);
    if (timer) this.clock.clearTimeout(timer);
    this.timers.delete(record.transactionalId);
    const producerEpoch = fence ? Math.min(record.producerEpoch + 1, LAST_EPOCH + 1) : record.producerEpoch;
    this.remember({ ...record, state: commit ? 'PrepareCommit' : 'PrepareAbort' });
    const groups = this.pendingOffsets.get(record.transactionalId) ?? new Map<string, CommittedOffset[]>();
    const offsets = [...groups].map(([groupId, entries]) => ({ groupId, offsets: entries }));
    const now = this.clock.now().getTime();
    const after: TransactionRecord = {
      ...record,
      producerEpoch,
      state: commit ? 'CompleteCommit' : 'CompleteAbort',
      partitions: [],
      groups: [],
      startedAt: -1,
      updatedAt: now,
    };
    try {
      await this.store.endTransaction(
        {
          producerId: record.producerId,
          producerEpoch,
          commit,
          offsets,
          record: after,
          partitions: record.partitions,
        },
        now,
      );
    } catch (error) {
      this.logger.error(
        { err: error, transactionalId: record.transactionalId },
        'writing transaction markers failed',
      );
      this.remember(record);
      throw error;
    }
    this.pendingOffsets.delete(record.transactionalId);
    this.remember(after);
    this.listener.markersWritten(record.partitions);
    if (commit) for (const entry of offsets) this.listener.offsetsCommitted(entry.groupId, entry.offsets);
    this.logger.info(
      { transactionalId: record.transactionalId, commit, partitions: record.partitions.length },
      'transaction ended',
    );
  }

  private remember(record: TransactionRecord): void {
    this.records.set(record.transactionalId, record);
  }
}

/**
 * PRODUCER_FENCED as a request of `version` may be answered: versions before the one that
 * introduced it (KIP-588) get INVALID_PRODUCER_EPOCH, which their clients know.
 */
export function fencedAnswer(errorCode: number, version: number, producerFencedSince: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && version < producerFencedSince
    ? ErrorCode.INVALID_PRODUCER_EPOCH
    : errorCode;
}
