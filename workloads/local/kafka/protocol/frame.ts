import { ProtocolError } from './codec.js';

/** Kafka's own default for `socket.request.max.bytes`. */
export const MAX_FRAME_BYTES = 100 * 1024 * 1024;

/**
 * Cuts a TCP stream into size-prefixed frames. Chunks are kept as they arrive and joined only
 * when a frame spans them, so a stream of small requests is not copied twice.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  /**
   * Adds `chunk` and returns every frame now complete (the size prefix removed). Throws
   * `ProtocolError` on a negative or oversized size: the caller closes the connection.
   */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.pendingBytes < 4) break;
      const head = this.contiguous(4);
      const size = head.readInt32BE(0);
      if (size < 0 || size > this.maxFrameBytes) {
        throw new ProtocolError(`frame size ${size} outside 0..${this.maxFrameBytes}`);
      }
      if (this.pendingBytes < 4 + size) break;
      const whole = this.contiguous(4 + size);
      frames.push(whole.subarray(4, 4 + size));
      this.consume(4 + size);
    }
    return frames;
  }

  /** Bytes waiting for the rest of their frame. */
  get buffered(): number {
    return this.pendingBytes;
  }

  private contiguous(size: number): Buffer {
    const first = this.pending[0]!;
    if (first.length >= size) return first;
    const joined = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [joined];
    return joined;
  }

  private consume(size: number): void {
    let rest = size;
    while (rest > 0) {
      const first = this.pending[0]!;
      if (first.length <= rest) {
        this.pending.shift();
        rest -= first.length;
      } else {
        this.pending[0] = first.subarray(rest);
        rest = 0;
      }
    }
    this.pendingBytes -= size;
  }
}
