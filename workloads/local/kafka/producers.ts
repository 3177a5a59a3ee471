import { ErrorCode } from './errors.js';

/**
 * What a partition remembers of one idempotent producer, as Kafka's ProducerStateManager does:
 * its epoch, the sequence ranges of its last five batches (to answer a retried batch with the
 * offsets it already has) and the first offset of its open transaction on the partition.
 */
export interface ProducerEntry {
  producerId: number;
  producerEpoch: number;
  /** Oldest first, at most `KEPT_BATCHES`. */
  batches: BatchMetadata[];
  /** The offset of its first batch in the transaction still open on this partition. */
  txnFirstOffset: number | null;
  /** When it last wrote (ms), for expiry. */
  lastTimestamp: number;
}

export interface BatchMetadata {
  firstSequence: number;
  lastSequence: number;
  firstOffset: number;
  lastOffset: number;
}

/** Kafka keeps the last five batches of each producer: its clients send at most five in flight. */
export const KEPT_BATCHES = 5;

export interface ProducedBatch {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
  transactional: boolean;
}

export type SequenceVerdict =
  | { kind: 'append' }
  | { kind: 'duplicate'; firstOffset: number }
  | { kind: 'refuse'; errorCode: number; message: string };

const MAX_SEQUENCE = 2 ** 31 - 1;

/** The sequence of a batch's last record: sequences wrap from 2^31-1 to 0. */
export function lastSequenceOf(batch: Pick<ProducedBatch, 'baseSequence' | 'lastOffsetDelta'>): number {
  const last = batch.baseSequence + batch.lastOffsetDelta;
  return last > MAX_SEQUENCE ? last - MAX_SEQUENCE - 1 : last;
}

function inSequence(lastSequence: number, nextSequence: number): boolean {
  return nextSequence === lastSequence + 1 || (nextSequence === 0 && lastSequence === MAX_SEQUENCE);
}

/**
 * Kafka's checks of a client's batch against the producer's state on the partition, in its order:
 * a batch matching one of the last five is a duplicate (answered with its first offset, nothing
 * written); an older epoch is INVALID_PRODUCER_EPOCH; a newer epoch must start at sequence 0; the
 * same epoch must continue the last sequence. A producer the partition has no state for (new, or
 * its state expired) is taken at any sequence.
 */
export function checkSequence(entry: ProducerEntry | undefined, batch: ProducedBatch): SequenceVerdict {
  if (!entry) return { kind: 'append' };
  const lastSequence = lastSequenceOf(batch);
  if (batch.producerEpoch === entry.producerEpoch) {
    const duplicate = entry.batches.find(
      (kept) => kept.firstSequence === batch.baseSequence && kept.lastSequence === lastSequence,
    );
    if (duplicate) return { kind: 'duplicate', firstOffset: duplicate.firstOffset };
    if (entry.txnFirstOffset !== null && !batch.transactional) {
      return {
        kind: 'refuse',
        errorCode: ErrorCode.INVALID_TXN_STATE,
        message: `Producer ${batch.producerId} wrote a non-transactional batch inside its open transaction`,
      };
    }
  }
  if (batch.producerEpoch < entry.producerEpoch) {
    return {
      kind: 'refuse',
      errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
      message: `Epoch of producer ${batch.producerId} is ${batch.producerEpoch}, which is smaller than the last seen epoch ${entry.producerEpoch}`,
    };
  }
  if (batch.producerEpoch > entry.producerEpoch) {
    if (batch.baseSequence === 0) return { kind: 'append' };
    return {
      kind: 'refuse',
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      message: `Invalid sequence number for new epoch of producer ${batch.producerId}: ${batch.producerEpoch} (request epoch), ${batch.baseSequence} (seq. number), ${entry.producerEpoch} (current producer epoch)`,
    };
  }
  const currentLast = entry.batches.at(-1)?.lastSequence ?? -1;
  if (inSequence(currentLast, batch.baseSequence)) return { kind: 'append' };
  return {
    kind: 'refuse',
    errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    message: `Out of order sequence number for producer ${batch.producerId}: ${batch.baseSequence} (incoming seq. number), ${currentLast} (current end sequence number)`,
  };
}

/** The entry after `batch` was written at `firstOffset`: a new epoch forgets the old batches. */
export function afterAppend(
  entry: ProducerEntry | undefined,
  batch: ProducedBatch,
  firstOffset: number,
  timestamp: number,
): ProducerEntry {
  const sameEpoch = entry?.producerEpoch === batch.producerEpoch;
  const kept = sameEpoch ? entry.batches : [];
  const metadata: BatchMetadata = {
    firstSequence: batch.baseSequence,
    lastSequence: lastSequenceOf(batch),
    firstOffset,
    lastOffset: firstOffset + batch.lastOffsetDelta,
  };
  const openTxn = sameEpoch ? entry.txnFirstOffset : null;
  return {
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    batches: [...kept, metadata].slice(-KEPT_BATCHES),
    txnFirstOffset: batch.transactional ? (openTxn ?? firstOffset) : openTxn,
    lastTimestamp: timestamp,
  };
}

/**
 * The entry after a transaction marker of `producerEpoch`: the transaction is closed, and a newer
 * epoch (a coordinator's fence) forgets the batches so the old epoch's retries are refused.
 */
export function afterMarker(
  entry: ProducerEntry | undefined,
  producerId: number,
  producerEpoch: number,
  timestamp: number,
): ProducerEntry {
  const sameEpoch = entry?.producerEpoch === producerEpoch;
  return {
    producerId,
    producerEpoch,
    batches: sameEpoch ? entry.batches : [],
    txnFirstOffset: null,
    lastTimestamp: timestamp,
  };
}
