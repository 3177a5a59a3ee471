import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProtocolError, Reader, Writer } from '../../workloads/local/kafka/protocol/codec.js';
import { FrameDecoder } from '../../workloads/local/kafka/protocol/frame.js';
import { coalesced } from '../../workloads/local/kafka/connection.js';

function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

describe('the wire codec', () => {
  it('reads back what it writes', () => {
    const big = randomBytes(4096);
    const written = new Writer()
      .int8(-3)
      .int16(-300)
      .int32(70_000)
      .int64(2 ** 40 + 7)
      .string('topic')
      .nullableString(null)
      .bytes(big)
      .nullableBytes(null)
      .array([1, 2, 3], (w, n) => w.int32(n))
      .varint(-1)
      .varlong(1_700_000_000_000)
      .toBuffer();
    const reader = new Reader(written);
    expect([reader.int8(), reader.int16(), reader.int32(), reader.int64()]).toEqual([
      -3,
      -300,
      70_000,
      2 ** 40 + 7,
    ]);
    expect([reader.string(), reader.nullableString()]).toEqual(['topic', null]);
    expect(reader.bytes().equals(big)).toBe(true);
    expect(reader.nullableBytes()).toBeNull();
    expect(reader.array((r) => r.int32())).toEqual([1, 2, 3]);
    expect([reader.varint(), reader.varlong()]).toEqual([-1, 1_700_000_000_000]);
    expect(reader.remaining).toBe(0);
  });

  it.each([
    [0, [0x00]],
    [-1, [0x01]],
    [1, [0x02]],
    [63, [0x7e]],
    [-64, [0x7f]],
    [64, [0x80, 0x01]],
    [300, [0xd8, 0x04]],
  ])('encodes the zig-zag varint %i as %j', (value, bytes) => {
    expect([...new Writer().varint(value).toBuffer()]).toEqual(bytes);
    expect(new Reader(Buffer.from(bytes)).varint()).toBe(value);
  });

  it.each([
    ['a string longer than the request', Buffer.from([0x00, 0x10, 0x41])],
    ['bytes longer than the request', Buffer.from([0x00, 0x00, 0x01, 0x00])],
    ['an array count beyond the request', Buffer.from([0x7f, 0xff, 0xff, 0xff])],
    ['an int32 cut short', Buffer.from([0x00, 0x01])],
  ])('throws ProtocolError on %s', (_case, input) => {
    const reader = new Reader(input);
    expect(() => {
      reader.string();
      reader.bytes();
    }).toThrow(ProtocolError);
    expect(() => new Reader(input).array((r) => r.int32())).toThrow(ProtocolError);
  });
});

describe('the flexible shape (KIP-482)', () => {
  it('writes compact strings, bytes and arrays with length + 1 and 0 for null', () => {
    const written = new Writer(true)
      .string('ab')
      .nullableString(null)
      .bytes(Buffer.from([9]))
      .nullableBytes(null)
      .array([7], (w, n) => w.int8(n))
      .nullableArray(null, () => undefined)
      .toBuffer();
    expect([...written]).toEqual([3, 0x61, 0x62, 0, 2, 9, 0, 2, 7, 0]);
    const reader = new Reader(written, 0, true);
    expect([reader.string(), reader.nullableString()]).toEqual(['ab', null]);
    expect([...reader.bytes()]).toEqual([9]);
    expect(reader.nullableBytes()).toBeNull();
    expect(reader.array((r) => r.int8())).toEqual([7]);
    expect(reader.nullableArray((r) => r.int8())).toBeNull();
    expect(reader.remaining).toBe(0);
  });

  it.each([
    [0, [0x00]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [0xffffffff, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('encodes the unsigned varint %i as %j', (value, bytes) => {
    expect([...new Writer().uvarint(value).toBuffer()]).toEqual(bytes);
    expect(new Reader(Buffer.from(bytes)).uvarint()).toBe(value);
  });

  it('refuses a varint of more than five bytes', () => {
    expect(() => new Reader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint()).toThrow(
      ProtocolError,
    );
  });

  it('skips tagged fields it does not know and reads those it asks for', () => {
    const written = new Writer(true)
      .tags([
        [0, (w) => w.int32(42)],
        [5, (w) => w.string('unknown to the reader')],
      ])
      .int8(1)
      .toBuffer();
    const seen: [number, number][] = [];
    const reader = new Reader(written, 0, true);
    reader.tags((tag, field) => {
      if (tag === 0) seen.push([tag, field.int32()]);
    });
    expect(seen).toEqual([[0, 42]]);
    expect(reader.int8()).toBe(1);
    expect(reader.remaining).toBe(0);
  });

  it('writes and reads nothing for tags in a non-flexible version', () => {
    expect(new Writer().tags([[0, (w) => w.int8(1)]]).length).toBe(0);
    const reader = new Reader(Buffer.from([5]));
    reader.tags();
    expect(reader.offset).toBe(0);
  });

  it('round-trips a UUID', () => {
    const id = '5f2c8a3e-1b4d-4c6e-9a7b-0123456789ab';
    const written = new Writer().uuid(id).toBuffer();
    expect(written.length).toBe(16);
    expect(new Reader(written).uuid()).toBe(id);
  });

  it('throws ProtocolError on a compact string longer than the request', () => {
    expect(() => new Reader(Buffer.from([0x10, 0x41]), 0, true).string()).toThrow(ProtocolError);
  });
});

describe('the frame decoder', () => {
  it('cuts frames however the stream is split', () => {
    const bodies = Array.from({ length: 20 }, (_, i) => randomBytes(i * 37));
    const stream = Buffer.concat(bodies.map(frame));
    for (const chunkSize of [1, 3, 7, 64, 1000, stream.length]) {
      const decoder = new FrameDecoder();
      const frames: Buffer[] = [];
      for (let at = 0; at < stream.length; at += chunkSize)
        frames.push(...decoder.push(stream.subarray(at, at + chunkSize)));
      expect(frames.map((f) => f.toString('hex'))).toEqual(bodies.map((b) => b.toString('hex')));
      expect(decoder.buffered).toBe(0);
    }
  });

  it.each([
    ['negative', -1],
    ['over 100 MiB', 100 * 1024 * 1024 + 1],
    ['the largest int32', 0x7fffffff],
  ])('refuses a %s size', (_case, size) => {
    const head = Buffer.alloc(4);
    head.writeInt32BE(size);
    expect(() => new FrameDecoder().push(head)).toThrow(ProtocolError);
  });

  it('survives random and truncated input: it frames, waits, or throws ProtocolError', () => {
    for (let round = 0; round < 2000; round++) {
      const decoder = new FrameDecoder(1024 * 1024);
      const input =
        round % 2 === 0
          ? randomBytes(Math.floor(Math.random() * 64))
          : frame(randomBytes(50)).subarray(0, Math.floor(Math.random() * 54));
      try {
        for (const body of decoder.push(input)) {
          // A framed body parsed as a request header must fail cleanly too.
          const reader = new Reader(body);
          try {
            reader.int16();
            reader.int16();
            reader.int32();
            reader.nullableString();
            reader.array((r) => r.string());
          } catch (error) {
            expect(error).toBeInstanceOf(ProtocolError);
          }
        }
      } catch (error) {
        expect(error).toBeInstanceOf(ProtocolError);
      }
    }
  });
});

describe('the writes of an answer', () => {
  const bytes = (length: number, fill: number) => Buffer.alloc(length, fill);
  it.each([
    { name: 'nothing', chunks: [], lengths: [] },
    {
      name: 'small chunks joined into one',
      chunks: [bytes(4, 1), bytes(9, 2), bytes(100, 3)],
      lengths: [113],
    },
    { name: 'a batch kept as it is', chunks: [bytes(20_000, 1)], lengths: [20_000] },
    {
      name: 'headers joined between batches kept apart',
      chunks: [bytes(9, 1), bytes(30, 2), bytes(20_000, 3), bytes(12, 4), bytes(16_384, 5), bytes(5, 6)],
      lengths: [39, 20_000, 12, 16_384, 5],
    },
  ])('$name', ({ chunks, lengths }) => {
    const pieces = coalesced(chunks);
    expect(pieces.map((piece) => piece.length)).toEqual(lengths);
    expect(Buffer.concat(pieces)).toEqual(Buffer.concat(chunks));
    for (const chunk of chunks.filter((chunk) => chunk.length >= 16_384)) expect(pieces).toContain(chunk);
  });
});
