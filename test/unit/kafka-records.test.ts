import { describe, expect, it } from 'vitest';
import {
  CorruptBatchError,
  crc32c,
  decodeRecords,
  encodeBatch,
  readBaseOffset,
  rebuildBatch,
  setBaseOffset,
  splitBatches,
} from '../../workloads/local/kafka/records.js';

const batchOf = (...values: string[]) =>
  encodeBatch(
    0,
    values.map((value, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.from(value),
      timestamp: 1_000 + i,
    })),
  );

/** CRC-32C by its definition, one bit at a time. */
const bitwise = (data: Buffer, start: number, end: number) => {
  let crc = -1;
  for (let i = start; i < end; i++) {
    crc ^= data[i]!;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0x82f63b78 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ -1) >>> 0;
};

describe('record batches', () => {
  it.each([
    ['123456789', 0xe3069283],
    ['', 0],
    ['a', 0xc1d04330],
  ])('computes CRC-32C of %j as %i', (text, expected) => {
    expect(crc32c(Buffer.from(text))).toBe(expected);
  });

  it('computes CRC-32C over every length and start, as the bitwise definition does', () => {
    const data = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 151 + 7) & 0xff));
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= data.length; end++) {
        expect(crc32c(data, start, end)).toBe(bitwise(data, start, end));
      }
    }
  });

  it('computes the same CRC-32C for a view at every alignment of its memory', () => {
    const backing = Buffer.alloc(300);
    for (let i = 0; i < backing.length; i++) backing[i] = (i * 89 + 13) & 0xff;
    const expected = bitwise(backing, 5, 290);
    for (let shift = 0; shift < 8; shift++) {
      const view = Buffer.alloc(300);
      backing.copy(view, shift, 5, 290);
      expect(crc32c(view.subarray(shift, shift + 285))).toBe(expected);
      expect(crc32c(view, shift, shift + 285)).toBe(expected);
    }
  });

  it('takes a well-formed batch and reads its header', () => {
    const [batch] = splitBatches(batchOf('a', 'b', 'c'));
    expect(batch).toMatchObject({
      lastOffsetDelta: 2,
      recordCount: 3,
      firstTimestamp: 1_000,
      maxTimestamp: 1_002,
      compression: 0,
    });
  });

  it('keeps the CRC valid when the base offset is rewritten', () => {
    const bytes = batchOf('a', 'b');
    setBaseOffset(bytes, 12_345);
    expect(readBaseOffset(bytes)).toBe(12_345);
    expect(() => splitBatches(bytes)).not.toThrow();
  });

  it.each([
    ['a flipped record byte', (b: Buffer) => (b[b.length - 1]! ^= 0xff)],
    ['a wrong magic', (b: Buffer) => b.writeInt8(1, 16)],
    ['a length past the buffer', (b: Buffer) => b.writeInt32BE(10_000, 8)],
  ])('refuses %s as corrupt', (_case, damage) => {
    const bytes = batchOf('a', 'b');
    damage(bytes);
    expect(() => splitBatches(bytes)).toThrow(CorruptBatchError);
  });

  it('refuses a truncated batch', () => {
    expect(() => splitBatches(batchOf('a').subarray(0, 40))).toThrow(CorruptBatchError);
  });

  it('rebuilds a batch with a subset of its records, offsets kept and CRC recomputed', () => {
    const bytes = batchOf('a', 'b', 'c');
    const kept = decodeRecords(bytes).filter((record) => record.offsetDelta !== 1);
    const rebuilt = rebuildBatch(bytes, kept);
    const [header] = splitBatches(rebuilt);
    expect(header).toMatchObject({ recordCount: 2, lastOffsetDelta: 2 });
    expect(decodeRecords(rebuilt).map((record) => [record.offsetDelta, record.value!.toString()])).toEqual([
      [0, 'a'],
      [2, 'c'],
    ]);
  });
});
