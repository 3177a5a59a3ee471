import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../workloads/local/kafka/errors.js';
import {
  afterAppend,
  afterMarker,
  checkSequence,
  lastSequenceOf,
  type ProducedBatch,
  type ProducerEntry,
} from '../../workloads/local/kafka/producers.js';

const batch = (overrides: Partial<ProducedBatch> = {}): ProducedBatch => ({
  producerId: 7,
  producerEpoch: 0,
  baseSequence: 0,
  lastOffsetDelta: 4,
  transactional: false,
  ...overrides,
});

/** A producer that wrote sequences 0-4 at offsets 10-14 and 5-9 at 20-24, epoch 0. */
const entry = (overrides: Partial<ProducerEntry> = {}): ProducerEntry => ({
  producerId: 7,
  producerEpoch: 0,
  batches: [
    { firstSequence: 0, lastSequence: 4, firstOffset: 10, lastOffset: 14 },
    { firstSequence: 5, lastSequence: 9, firstOffset: 20, lastOffset: 24 },
  ],
  txnFirstOffset: null,
  lastTimestamp: 0,
  ...overrides,
});

describe('a partition checking an idempotent producer batch (Kafka ProducerStateManager)', () => {
  it.each([
    ['no state yet, at 0', undefined, batch(), { kind: 'append' }],
    ['no state (expired), any sequence', undefined, batch({ baseSequence: 42 }), { kind: 'append' }],
    ['the next sequence', entry(), batch({ baseSequence: 10 }), { kind: 'append' }],
    [
      'a retry of the last batch',
      entry(),
      batch({ baseSequence: 5 }),
      { kind: 'duplicate', firstOffset: 20 },
    ],
    [
      'a retry of an older kept batch',
      entry(),
      batch({ baseSequence: 0 }),
      { kind: 'duplicate', firstOffset: 10 },
    ],
    [
      'a gap',
      entry(),
      batch({ baseSequence: 11 }),
      { kind: 'refuse', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER },
    ],
    [
      'an overlap that is no retry',
      entry(),
      batch({ baseSequence: 5, lastOffsetDelta: 2 }),
      { kind: 'refuse', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER },
    ],
    [
      'an older epoch',
      entry({ producerEpoch: 3 }),
      batch({ producerEpoch: 2, baseSequence: 10 }),
      { kind: 'refuse', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH },
    ],
    ['a newer epoch from 0', entry(), batch({ producerEpoch: 1 }), { kind: 'append' }],
    [
      'a newer epoch not from 0',
      entry(),
      batch({ producerEpoch: 1, baseSequence: 10 }),
      { kind: 'refuse', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER },
    ],
    [
      'a plain batch inside its open transaction',
      entry({ txnFirstOffset: 20 }),
      batch({ baseSequence: 10 }),
      { kind: 'refuse', errorCode: ErrorCode.INVALID_TXN_STATE },
    ],
    [
      'after a marker, the epoch starting over at 0',
      afterMarker(entry(), 7, 0, 0),
      batch({ baseSequence: 10, transactional: true }),
      { kind: 'append' },
    ],
    [
      'after a fencing marker, the old epoch',
      afterMarker(entry(), 7, 1, 0),
      batch({ baseSequence: 10 }),
      { kind: 'refuse', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH },
    ],
  ] as const)('%s', (_, state, produced, verdict) => {
    expect(checkSequence(state, produced)).toMatchObject(verdict);
  });

  it('wraps sequences past 2^31-1 to 0', () => {
    expect(lastSequenceOf({ baseSequence: 2 ** 31 - 2, lastOffsetDelta: 3 })).toBe(1);
    const wrapped = entry({
      batches: [{ firstSequence: 2 ** 31 - 5, lastSequence: 2 ** 31 - 1, firstOffset: 0, lastOffset: 4 }],
    });
    expect(checkSequence(wrapped, batch({ baseSequence: 0 }))).toEqual({ kind: 'append' });
  });

  it('keeps the last five batches, and opens a transaction at its first batch', () => {
    let state: ProducerEntry | undefined;
    for (let i = 0; i < 7; i++) state = afterAppend(state, batch({ baseSequence: i * 5 }), i * 10, i);
    expect(state!.batches.map((kept) => kept.firstSequence)).toEqual([10, 15, 20, 25, 30]);
    const opened = afterAppend(state, batch({ baseSequence: 35, transactional: true }), 70, 8);
    const continued = afterAppend(opened, batch({ baseSequence: 40, transactional: true }), 80, 9);
    expect(continued.txnFirstOffset).toBe(70);
    expect(afterMarker(continued, 7, 0, 10).txnFirstOffset).toBeNull();
  });
});
