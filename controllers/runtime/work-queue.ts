import type { Clock, TimerHandle } from '../../observability/clock.js';
import { systemClock } from '../../observability/clock.js';

export interface BackoffPolicy {
  /** Delay after the first failure. */
  baseDelayMs: number;
  /** Upper bound of the exponential delay. */
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 100, maxDelayMs: 5 * 60_000 };

/**
 * A work queue with client-go's guarantees: a key is never queued twice, a key being processed
 * is never handed to a second worker (re-adds during processing are parked and re-queued on
 * `done`), and failures back off exponentially per key.
 */
export class WorkQueue<K extends string = string> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly delayed = new Map<K, { at: number; timer: TimerHandle }>();
  private readonly failures = new Map<K, number>();
  private readonly waiters: Array<(key: K | undefined) => void> = [];
  private shuttingDown = false;

  constructor(
    private readonly backoff: BackoffPolicy = DEFAULT_BACKOFF,
    private readonly clock: Clock = systemClock,
    private readonly onDepthChange: (depth: number) => void = () => {},
  ) {}

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.onDepthChange(this.queue.length);
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now().getTime() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    const timer = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Re-adds after this key's next exponential backoff delay. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.nextBackoff(key));
  }

  /** The delay the next `addRateLimited` of this key will use, counting this failure. */
  nextBackoff(key: K): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    return Math.min(this.backoff.baseDelayMs * 2 ** failures, this.backoff.maxDelayMs);
  }

  /** Clears the failure count of a key that succeeded. */
  forget(key: K): void {
    this.failures.delete(key);
  }

  /** The next key to process; undefined once the queue is shut down and drained. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.onDepthChange(this.queue.length);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was re-added meanwhile it goes back on the queue. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  get depth(): number {
    return this.queue.length;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) this.clock.clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
