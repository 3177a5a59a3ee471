import { gunzipSync } from 'node:zlib';
import { ProtocolError, Reader, Writer } from './protocol/codec.js';

/**
 * RecordBatch v2 (magic 2), the unit the broker stores: kept as the raw bytes the producer sent,
 * with only the base offset rewritten. The CRC-32C covers attributes onward, so neither the base
 * offset, the length nor the partition leader epoch changes it.
 */

/**
 * CRC-32C tables for slicing-by-16, one after another: entry 256·k + n is the CRC of byte n
 * followed by k zero bytes, so sixteen input bytes fold per step instead of one (every produced
 * batch is checked over all its bytes on the produce path).
 */
const SLICES = 16;
const CRC32C_TABLES = (() => {
  const tables = new Int32Array(SLICES * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n]!;
    for (let k = 1; k < SLICES; k++) {
      c = tables[c & 0xff]! ^ (c >>> 8);
      tables[k * 256 + n] = c;
    }
  }
  return tables;
})();

/**
 * Whether an `Int32Array` reads memory little-endian, as the CRC folds bytes in (x86 and ARM do);
 * elsewhere every byte goes through the one-byte step.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * CRC-32C (Castagnoli), as record batches carry it. The bytes are read four at a time through an
 * `Int32Array` over the 4-aligned middle of the range (a quarter of the loads of reading bytes),
 * the unaligned ends one byte at a time.
 */
export function crc32c(data: Buffer, start = 0, end = data.length): number {
  const t = CRC32C_TABLES;
  let crc = -1;
  let i = start;
  const aligned = Math.min(end, start + ((4 - ((data.byteOffset + start) & 3)) & 3));
  for (; i < aligned; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  const blocks = LITTLE_ENDIAN ? (end - i) >>> 4 : 0;
  if (blocks > 0) {
    const words = new Int32Array(data.buffer, data.byteOffset + i, blocks * 4);
    for (let w = 0; w < words.length; w += 4) {
      const a = crc ^ words[w]!;
      const b = words[w + 1]!;
      const c = words[w + 2]!;
      const d = words[w + 3]!;
      crc =
        t[3840 + (a & 0xff)]! ^
        t[3584 + ((a >>> 8) & 0xff)]! ^
        t[3328 + ((a >>> 16) & 0xff)]! ^
        t[3072 + (a >>> 24)]! ^
        t[2816 + (b & 0xff)]! ^
        t[2560 + ((b >>> 8) & 0xff)]! ^
        t[2304 + ((b >>> 16) & 0xff)]! ^
        t[2048 + (b >>> 24)]! ^
        t[1792 + (c & 0xff)]! ^
        t[1536 + ((c >>> 8) & 0xff)]! ^
        t[1280 + ((c >>> 16) & 0xff)]! ^
        t[1024 + (c >>> 24)]! ^
        t[768 + (d & 0xff)]! ^
        t[512 + ((d >>> 8) & 0xff)]! ^
        t[256 + ((d >>> 16) & 0xff)]! ^
        t[d >>> 24]!;
    }
    i += blocks * 16;
  }
  for (; i < end; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

export const BATCH_HEADER_BYTES = 61;
const LENGTH_AT = 8;
const MAGIC_AT = 16;
const CRC_AT = 17;
const ATTRIBUTES_AT = 21;
const LAST_OFFSET_DELTA_AT = 23;
const FIRST_TIMESTAMP_AT = 27;
const MAX_TIMESTAMP_AT = 35;
const PRODUCER_ID_AT = 43;
const PRODUCER_EPOCH_AT = 51;
const BASE_SEQUENCE_AT = 53;
const RECORD_COUNT_AT = 57;
const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;

export interface BatchHeader {
  /** The whole batch, from its base offset to its last record. */
  bytes: Buffer;
  lastOffsetDelta: number;
  firstTimestamp: number;
  maxTimestamp: number;
  recordCount: number;
  /** 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  compression: number;
  /** -1 for a producer that is not idempotent. */
  producerId: number;
  producerEpoch: number;
  /** The sequence number of the batch's first record; -1 without a producer id. */
  baseSequence: number;
  /** Part of a transaction: readers in read_committed see it only once its commit marker is written. */
  transactional: boolean;
  /** A commit or abort marker, which only the broker writes. */
  control: boolean;
}

export class CorruptBatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptBatchError';
  }
}

/**
 * Splits a produce request's records into batches and checks each: magic 2, a length inside the
 * buffer, the CRC-32C. Throws `CorruptBatchError` (CORRUPT_MESSAGE) otherwise.
 */
export function splitBatches(records: Buffer): BatchHeader[] {
  const batches: BatchHeader[] = [];
  let at = 0;
  while (at < records.length) {
    if (records.length - at < BATCH_HEADER_BYTES) throw new CorruptBatchError('truncated record batch');
    const length = records.readInt32BE(at + LENGTH_AT);
    const end = at + 12 + length;
    if (length < BATCH_HEADER_BYTES - 12 || end > records.length) {
      throw new CorruptBatchError('record batch length outside the request');
    }
    const magic = records.readInt8(at + MAGIC_AT);
    if (magic !== 2) throw new CorruptBatchError(`record batch magic ${magic}; only 2 is taken`);
    const expected = records.readUInt32BE(at + CRC_AT);
    if (crc32c(records, at + ATTRIBUTES_AT, end) !== expected) {
      throw new CorruptBatchError('record batch CRC-32C mismatch');
    }
    const attributes = records.readInt16BE(at + ATTRIBUTES_AT);
    batches.push({
      bytes: records.subarray(at, end),
      lastOffsetDelta: records.readInt32BE(at + LAST_OFFSET_DELTA_AT),
      firstTimestamp: Number(records.readBigInt64BE(at + FIRST_TIMESTAMP_AT)),
      maxTimestamp: Number(records.readBigInt64BE(at + MAX_TIMESTAMP_AT)),
      recordCount: records.readInt32BE(at + RECORD_COUNT_AT),
      compression: attributes & 0x07,
      producerId: Number(records.readBigInt64BE(at + PRODUCER_ID_AT)),
      producerEpoch: records.readInt16BE(at + PRODUCER_EPOCH_AT),
      baseSequence: records.readInt32BE(at + BASE_SEQUENCE_AT),
      transactional: (attributes & TRANSACTIONAL) !== 0,
      control: (attributes & CONTROL) !== 0,
    });
    at = end;
  }
  return batches;
}

/** Sets the batch's base offset in place (the CRC does not cover it). */
export function setBaseOffset(batch: Buffer, baseOffset: number): void {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
}

export function readBaseOffset(batch: Buffer): number {
  return Number(batch.readBigInt64BE(0));
}

export function lastOffsetOf(batch: Buffer): number {
  return readBaseOffset(batch) + batch.readInt32BE(LAST_OFFSET_DELTA_AT);
}

export interface DecodedRecord {
  offsetDelta: number;
  timestampDelta: number;
  attributes: number;
  key: Buffer | null;
  value: Buffer | null;
  /** Headers as their raw encoded bytes (count and entries), copied back unchanged. */
  headers: Buffer;
}

/** The records of an uncompressed batch (compaction and timestamp lookup need them). */
export function decodeRecords(batch: Buffer): DecodedRecord[] {
  const count = batch.readInt32BE(RECORD_COUNT_AT);
  const reader = new Reader(batch, BATCH_HEADER_BYTES);
  const records: DecodedRecord[] = [];
  for (let i = 0; i < count; i++) {
    const length = reader.varint();
    const end = reader.offset + length;
    if (length < 0 || end > batch.length) throw new ProtocolError('record outside its batch');
    const attributes = reader.int8();
    const timestampDelta = reader.varlong();
    const offsetDelta = reader.varint();
    const key = reader.varBytes();
    const value = reader.varBytes();
    const headers = batch.subarray(reader.offset, end);
    reader.offset = end;
    records.push({ offsetDelta, timestampDelta, attributes, key, value, headers });
  }
  return records;
}

/**
 * A copy of `batch` holding only `records` (a subset of its own), with the header's base offset,
 * last offset delta and timestamps kept, the count and CRC-32C recomputed: what compaction writes.
 */
export function rebuildBatch(batch: Buffer, records: readonly DecodedRecord[]): Buffer {
  const body = new Writer();
  for (const record of records) {
    const inner = new Writer()
      .int8(record.attributes)
      .varlong(record.timestampDelta)
      .varint(record.offsetDelta)
      .varBytes(record.key)
      .varBytes(record.value)
      .raw(record.headers)
      .toBuffer();
    body.varint(inner.length).raw(inner);
  }
  const recordsBytes = body.toBuffer();
  const rebuilt = Buffer.concat([batch.subarray(0, BATCH_HEADER_BYTES), recordsBytes]);
  rebuilt.writeInt32BE(rebuilt.length - 12, LENGTH_AT);
  rebuilt.writeInt32BE(records.length, RECORD_COUNT_AT);
  rebuilt.writeUInt32BE(crc32c(rebuilt, ATTRIBUTES_AT), CRC_AT);
  return rebuilt;
}

export function batchCompression(batch: Buffer): number {
  return batch.readInt16BE(ATTRIBUTES_AT) & 0x07;
}

export function isControlBatch(batch: Buffer): boolean {
  return (batch.readInt16BE(ATTRIBUTES_AT) & CONTROL) !== 0;
}

/**
 * A transaction marker as Kafka writes it: a transactional control batch of the producer's id and
 * epoch holding one record, key (version 0, type 0 abort or 1 commit), value (version 0,
 * coordinator epoch).
 */
export function encodeControlBatch(
  producerId: number,
  producerEpoch: number,
  commit: boolean,
  timestamp: number,
): Buffer {
  const header = Buffer.alloc(BATCH_HEADER_BYTES);
  header.writeInt32BE(-1, 12);
  header.writeInt8(2, MAGIC_AT);
  header.writeInt16BE(TRANSACTIONAL | CONTROL, ATTRIBUTES_AT);
  header.writeBigInt64BE(BigInt(timestamp), FIRST_TIMESTAMP_AT);
  header.writeBigInt64BE(BigInt(timestamp), MAX_TIMESTAMP_AT);
  header.writeBigInt64BE(BigInt(producerId), PRODUCER_ID_AT);
  header.writeInt16BE(producerEpoch, PRODUCER_EPOCH_AT);
  header.writeInt32BE(-1, BASE_SEQUENCE_AT);
  const key = Buffer.alloc(4);
  key.writeInt16BE(commit ? 1 : 0, 2);
  const value = Buffer.alloc(6);
  return rebuildBatch(header, [
    { offsetDelta: 0, timestampDelta: 0, attributes: 0, key, value, headers: Buffer.from([0]) },
  ]);
}

/** The producer fields of a batch an idempotent (or transactional) producer writes. */
export interface BatchProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  transactional?: boolean;
}

/** Builds an uncompressed batch: what tests and the broker's own writes use. */
export function encodeBatch(
  baseOffset: number,
  records: readonly { key: Buffer | null; value: Buffer | null; timestamp: number }[],
  producer: BatchProducer = { producerId: -1, producerEpoch: -1, baseSequence: -1 },
): Buffer {
  const first = records[0]?.timestamp ?? 0;
  const max = records.reduce((most, record) => Math.max(most, record.timestamp), first);
  const header = Buffer.alloc(BATCH_HEADER_BYTES);
  header.writeBigInt64BE(BigInt(baseOffset), 0);
  header.writeInt32BE(-1, 12);
  header.writeInt8(2, MAGIC_AT);
  header.writeInt32BE(Math.max(0, records.length - 1), LAST_OFFSET_DELTA_AT);
  header.writeBigInt64BE(BigInt(first), FIRST_TIMESTAMP_AT);
  header.writeBigInt64BE(BigInt(max), MAX_TIMESTAMP_AT);
  header.writeInt16BE(producer.transactional ? TRANSACTIONAL : 0, ATTRIBUTES_AT);
  header.writeBigInt64BE(BigInt(producer.producerId), PRODUCER_ID_AT);
  header.writeInt16BE(producer.producerEpoch, PRODUCER_EPOCH_AT);
  header.writeInt32BE(producer.baseSequence, BASE_SEQUENCE_AT);
  return rebuildBatch(
    header,
    records.map((record, index) => ({
      offsetDelta: index,
      timestampDelta: record.timestamp - first,
      attributes: 0,
      key: record.key,
      value: record.value,
      headers: Buffer.from([0]),
    })),
  );
}

/** A stored record as a reader sees it: absolute offset and time, headers decoded. */
export interface ReadableRecord {
  offset: number;
  /** Milliseconds since the epoch: the producer's time, or the broker's where the topic says so. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

const LOG_APPEND_TIME = 0x08;
const GZIP = 1;

function decodeHeaders(raw: Buffer): ReadableRecord['headers'] {
  const reader = new Reader(raw);
  const count = reader.varint();
  const headers: ReadableRecord['headers'] = [];
  for (let i = 0; i < count; i++) {
    const key = reader.varBytes();
    headers.push({ key: key?.toString('utf8') ?? '', value: reader.varBytes() });
  }
  return headers;
}

/**
 * The records of a stored batch, uncompressed or gzip (what Node can inflate); undefined for a
 * batch in another codec (snappy, lz4, zstd), which a reader of the platform cannot open.
 */
export function readableRecords(batch: Buffer): ReadableRecord[] | undefined {
  const compression = batchCompression(batch);
  let plain = batch;
  if (compression === GZIP) {
    plain = Buffer.concat([
      batch.subarray(0, BATCH_HEADER_BYTES),
      gunzipSync(batch.subarray(BATCH_HEADER_BYTES)),
    ]);
  } else if (compression !== 0) {
    return undefined;
  }
  const baseOffset = readBaseOffset(batch);
  const firstTimestamp = Number(batch.readBigInt64BE(FIRST_TIMESTAMP_AT));
  const maxTimestamp = Number(batch.readBigInt64BE(MAX_TIMESTAMP_AT));
  const appendTime = (batch.readInt16BE(ATTRIBUTES_AT) & LOG_APPEND_TIME) !== 0;
  return decodeRecords(plain).map((record) => ({
    offset: baseOffset + record.offsetDelta,
    timestamp: appendTime ? maxTimestamp : firstTimestamp + record.timestampDelta,
    key: record.key,
    value: record.value,
    headers: decodeHeaders(record.headers),
  }));
}
