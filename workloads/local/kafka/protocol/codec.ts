/**
 * The Kafka wire types of the non-flexible versions: big-endian integers, int16-prefixed strings,
 * int32-prefixed bytes and arrays (-1 for null), and the zig-zag varints of record batches.
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

  constructor(
    readonly buffer: Buffer,
    offset = 0,
  ) {
    this.offset = offset;
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

  nullableString(): string | null {
    const length = this.int16();
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
    const length = this.int32();
    if (length < 0) return null;
    const at = this.take(length);
    return this.buffer.subarray(at, at + length);
  }

  bytes(): Buffer {
    return this.nullableBytes() ?? Buffer.alloc(0);
  }

  nullableArray<T>(item: (reader: Reader) => T): T[] | null {
    const count = this.int32();
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

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.buffer.readUInt8(this.take(1));
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
      shift += 7;
      if (shift > 28) throw new ProtocolError('varint too long');
    }
    return (result >>> 1) ^ -(result & 1);
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

  nullableString(value: string | null | undefined): this {
    if (value === null || value === undefined) return this.int16(-1);
    const length = Buffer.byteLength(value);
    this.int16(length);
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
    if (value === null || value === undefined) return this.int32(-1);
    return this.int32(value.length).raw(value);
  }

  bytes(value: Buffer): this {
    return this.nullableBytes(value);
  }

  array<T>(items: readonly T[], item: (writer: this, value: T) => void): this {
    this.int32(items.length);
    for (const value of items) item(this, value);
    return this;
  }

  nullableArray<T>(items: readonly T[] | null, item: (writer: this, value: T) => void): this {
    if (items === null) return this.int32(-1);
    return this.array(items, item);
  }

  varint(value: number): this {
    let zigzag = ((value << 1) ^ (value >> 31)) >>> 0;
    this.room(5);
    while (zigzag >= 0x80) {
      this.scratch[this.used++] = (zigzag & 0x7f) | 0x80;
      zigzag >>>= 7;
    }
    this.scratch[this.used++] = zigzag;
    return this;
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
