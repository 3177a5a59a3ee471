/**
 * The Kafka wire types: big-endian integers, the zig-zag varints of record batches, and strings,
 * bytes and arrays in the two shapes of the protocol. In a non-flexible version they are
 * int16-prefixed strings and int32-prefixed bytes and arrays (-1 for null); in a flexible version
 * (KIP-482) they are compact, prefixed with an unsigned varint of length + 1 (0 for null), and
 * every structure ends with a tagged-field section. A `Reader` or `Writer` is made for one shape
 * (`flexible`), so a message's code reads the same in both and calls `tags()` where a flexible
 * structure ends (nothing is read or written there in a non-flexible version).
 */

/** A request the broker cannot parse: the connection that sent it is closed. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Reads one request body; every read is bounds-checked and throws `ProtocolError` past the end. */
export class Reader {
  offset: number;
  /** Compact strings, bytes and arrays and tagged fields; a request header switches it on. */
  flexible: boolean;

  constructor(
    readonly buffer: Buffer,
    offset = 0,
    flexible = false,
  ) {
    this.offset = offset;
    this.flexible = flexible;
  }

  get remaining(): number {
    return this.buffer.length - this.offset;
  }

  private take(size: number): number {
    const at = this.offset;
    if (size < 0 || at + size > this.buffer.length) throw new ProtocolError('request ends early');
    this.offset = at + size;
    return at;
  }

  int8(): number {
    return this.buffer.readInt8(this.take(1));
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    return this.buffer.readInt16BE(this.take(2));
  }

  int32(): number {
    return this.buffer.readInt32BE(this.take(4));
  }

  /** An int64 as a number: offsets and timestamps stay far below 2^53. */
  int64(): number {
    return Number(this.buffer.readBigInt64BE(this.take(8)));
  }

  /** A UUID (topic ids) as its canonical lower-case text. */
  uuid(): string {
    const at = this.take(16);
    return formatUuid(this.buffer.subarray(at, at + 16));
  }

  /** The length prefix of a string, bytes or array: -1 for null. */
  private prefix(wide: () => number): number {
    return this.flexible ? this.uvarint() - 1 : wide();
  }

  nullableString(): string | null {
    const length = this.prefix(() => this.int16());
    if (length < 0) return null;
    const at = this.take(length);
    return this.buffer.toString('utf8', at, at + length);
  }

  string(): string {
    const value = this.nullableString();
    if (value === null) throw new ProtocolError('a required string is null');
    return value;
  }

  /** A view into the request, not a copy. */
  nullableBytes(): Buffer | null {
    const length = this.prefix(() => this.int32());
    if (length < 0) return null;
    const at = this.take(length);
    return this.buffer.subarray(at, at + length);
  }

  bytes(): Buffer {
    return this.nullableBytes() ?? Buffer.alloc(0);
  }

  nullableArray<T>(item: (reader: Reader) => T): T[] | null {
    const count = this.prefix(() => this.int32());
    if (count < 0) return null;
    // Each element takes at least one byte, which bounds what a forged count can make us allocate.
    if (count > this.remaining) throw new ProtocolError('array longer than the request');
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(item(this));
    return items;
  }

  array<T>(item: (reader: Reader) => T): T[] {
    return this.nullableArray(item) ?? [];
  }

  /** An unsigned varint (lengths and tags of the flexible versions), at most 32 bits. */
  uvarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (i === 5) throw new ProtocolError('varint too long');
      const byte = this.buffer.readUInt8(this.take(1));
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      scale *= 128;
    }
    if (result > 0xffffffff) throw new ProtocolError('varint too long');
    return result;
  }

  varint(): number {
    const zigzag = this.uvarint();
    return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
  }

  varlong(): number {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.buffer.readUInt8(this.take(1));
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new ProtocolError('varlong too long');
    }
    return Number((result >> 1n) ^ -(result & 1n));
  }

  /**
   * The tagged fields that end a structure of a flexible version (nothing in a non-flexible one).
   * `known` reads the tags the caller understands, each from a reader over that field's bytes;
   * every other tag is skipped, as KIP-482 asks.
   */
  tags(known?: (tag: number, field: Reader) => void): void {
    if (!this.flexible) return;
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint();
      const size = this.uvarint();
      const at = this.take(size);
      known?.(tag, new Reader(this.buffer.subarray(at, at + size), 0, true));
    }
  }

  /** Varint-length bytes (a record's key or value); null for -1. */
  varBytes(): Buffer | null {
    const length = this.varint();
    if (length < 0) return null;
    const at = this.take(length);
    return this.buffer.subarray(at, at + length);
  }
}

const CHUNK = 16 * 1024;

/**
 * Builds one response. Small fields go into a scratch buffer; large raw buffers (record batches)
 * are kept as their own chunks, so a fetch answer never copies the records it sends.
 */
export class Writer {
  private readonly chunks: Buffer[] = [];
  private scratch = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private flushed = 0;

  /** `flexible`: compact strings, bytes and arrays and tagged fields (KIP-482). */
  constructor(readonly flexible = false) {}

  /** The length prefix of a string, bytes or array (-1 for null) in this writer's shape. */
  private prefix(value: number, wide: (value: number) => this): this {
    return this.flexible ? this.uvarint(value + 1) : wide(value);
  }

  private room(size: number): void {
    if (this.used + size <= this.scratch.length) return;
    this.seal();
    this.scratch = Buffer.allocUnsafe(Math.max(CHUNK, size));
  }

  private seal(): void {
    if (this.used > 0) {
      this.chunks.push(this.scratch.subarray(0, this.used));
      this.flushed += this.used;
      this.scratch = this.scratch.subarray(this.used);
      this.used = 0;
    }
  }

  get length(): number {
    return this.flushed + this.used;
  }

  int8(value: number): this {
    this.room(1);
    this.scratch.writeInt8(value, this.used);
    this.used += 1;
    return this;
  }

  bool(value: boolean): this {
    return this.int8(value ? 1 : 0);
  }

  int16(value: number): this {
    this.room(2);
    this.scratch.writeInt16BE(value, this.used);
    this.used += 2;
    return this;
  }

  int32(value: number): this {
    this.room(4);
    this.scratch.writeInt32BE(value, this.used);
    this.used += 4;
    return this;
  }

  int64(value: number): this {
    this.room(8);
    this.scratch.writeBigInt64BE(BigInt(value), this.used);
    this.used += 8;
    return this;
  }

  uuid(value: string): this {
    return this.raw(parseUuid(value));
  }

  nullableString(value: string | null | undefined): this {
    const int16 = (length: number) => this.int16(length);
    if (value === null || value === undefined) return this.prefix(-1, int16);
    const length = Buffer.byteLength(value);
    this.prefix(length, int16);
    this.room(length);
    this.scratch.write(value, this.used, 'utf8');
    this.used += length;
    return this;
  }

  string(value: string): this {
    return this.nullableString(value);
  }

  /** Appends `value` as is; large buffers are referenced, not copied. */
  raw(value: Buffer): this {
    if (value.length < 256) {
      this.room(value.length);
      value.copy(this.scratch, this.used);
      this.used += value.length;
    } else {
      this.seal();
      this.chunks.push(value);
      this.flushed += value.length;
    }
    return this;
  }

  nullableBytes(value: Buffer | null | undefined): this {
    const int32 = (length: number) => this.int32(length);
    if (value === null || value === undefined) return this.prefix(-1, int32);
    return this.prefix(value.length, int32).raw(value);
  }

  bytes(value: Buffer): this {
    return this.nullableBytes(value);
  }

  array<T>(items: readonly T[], item: (writer: this, value: T) => void): this {
    this.prefix(items.length, (length) => this.int32(length));
    for (const value of items) item(this, value);
    return this;
  }

  nullableArray<T>(items: readonly T[] | null, item: (writer: this, value: T) => void): this {
    if (items === null) return this.prefix(-1, (length) => this.int32(length));
    return this.array(items, item);
  }

  /** An unsigned varint, at most 32 bits. */
  uvarint(value: number): this {
    let rest = value >>> 0;
    this.room(5);
    while (rest >= 0x80) {
      this.scratch[this.used++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.scratch[this.used++] = rest;
    return this;
  }

  /**
   * The tagged-field section that ends a structure of a flexible version (nothing in a
   * non-flexible one): `fields` in ascending tag order, each written by its function.
   */
  tags(fields: readonly (readonly [tag: number, write: (writer: Writer) => void])[] = []): this {
    if (!this.flexible) return this;
    this.uvarint(fields.length);
    for (const [tag, write] of fields) {
      const field = new Writer(true);
      write(field);
      this.uvarint(tag).uvarint(field.length);
      for (const chunk of field.finish()) this.raw(chunk);
    }
    return this;
  }

  varint(value: number): this {
    return this.uvarint(((value << 1) ^ (value >> 31)) >>> 0);
  }

  varlong(value: number): this {
    let zigzag = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n));
    this.room(10);
    while (zigzag >= 0x80n) {
      this.scratch[this.used++] = Number(zigzag & 0x7fn) | 0x80;
      zigzag >>= 7n;
    }
    this.scratch[this.used++] = Number(zigzag);
    return this;
  }

  varBytes(value: Buffer | null): this {
    if (value === null) return this.varint(-1);
    this.varint(value.length);
    return this.raw(value);
  }

  /** The chunks written so far, in order. */
  finish(): Buffer[] {
    this.seal();
    return this.chunks;
  }

  /** One contiguous buffer (tests, small messages). */
  toBuffer(): Buffer {
    return Buffer.concat(this.finish());
  }
}

/** The all-zero UUID Kafka sends where a topic id is absent. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function parseUuid(value: string): Buffer {
  const bytes = Buffer.from(value.replace(/-/g, ''), 'hex');
  if (bytes.length !== 16) throw new Error(`not a UUID: ${value}`);
  return bytes;
}
