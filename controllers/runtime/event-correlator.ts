import type { EventType, ObjectReference } from '../../control-plane/event-objects.js';

/**
 * What client-go's event correlator decides for each event a controller records, so repeats
 * never become a storm:
 *
 * - the aggregator: once ten events of one object, type and reason with different messages
 *   arrive within ten minutes, the next ones become one event whose message says it is combined;
 * - the logger: an event seen before (same object, type, reason and message) is not written
 *   again but counted: its `count` grows and its `lastTimestamp` moves;
 * - the spam filter: a token bucket per object and type (25 writes at once, then one every five
 *   minutes); a write without a token is skipped, its occurrence still counted.
 *
 * Decisions only; `StoreEventRecorder` writes them.
 */

export interface RecordedEvent {
  involvedObject: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

export type Correlation =
  | {
      /** `create`: the first occurrence, written as a new Event; `count`: a repeat, patched onto it. */
      action: 'create' | 'count';
      key: string;
      /** The Event's name: the object's name and the first occurrence's time, as client-go names it. */
      name: string;
      message: string;
      count: number;
      firstTimestamp: string;
    }
  | { action: 'drop' };

export interface CorrelatorOptions {
  /** Events one distinct event may write at once. Default 25, as client-go. */
  burst?: number;
  /** One token comes back every this long. Default 5 minutes, as client-go. */
  refillIntervalMs?: number;
  /** Distinct messages of one object and reason before they are combined. Default 10. */
  similarMessages?: number;
  /** The window in which similar messages count towards combining. Default 10 minutes. */
  similarWindowMs?: number;
  /** Events remembered for counting, least recently seen forgotten first. Default 4096. */
  cacheSize?: number;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
}

interface Similar {
  messages: Set<string>;
  lastAt: number;
}

interface Logged {
  name: string;
  count: number;
  firstTimestamp: string;
}

export const COMBINED_PREFIX = '(combined from similar events): ';

/** A map that forgets its least recently used entry beyond `limit`. */
class RecentMap<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }
}

function objectKey(reference: ObjectReference): string {
  const { apiVersion, kind, namespace, name, uid, fieldPath } = reference;
  return JSON.stringify([apiVersion, kind, namespace, name, uid, fieldPath]);
}

export class EventCorrelator {
  private readonly burst: number;
  private readonly refillIntervalMs: number;
  private readonly similarMessages: number;
  private readonly similarWindowMs: number;
  private readonly buckets: RecentMap<Bucket>;
  private readonly similar: RecentMap<Similar>;
  private readonly logged: RecentMap<Logged>;
  private sequence = 0;

  constructor(options: CorrelatorOptions = {}) {
    this.burst = options.burst ?? 25;
    this.refillIntervalMs = options.refillIntervalMs ?? 5 * 60_000;
    this.similarMessages = options.similarMessages ?? 10;
    this.similarWindowMs = options.similarWindowMs ?? 10 * 60_000;
    const size = options.cacheSize ?? 4096;
    this.buckets = new RecentMap(size);
    this.similar = new RecentMap(size);
    this.logged = new RecentMap(size);
  }

  /**
   * What to do with `event` recorded at `now`. As client-go's correlator: aggregated first, then
   * counted, then filtered, so a repeat the spam filter drops still counts, and the next one
   * written carries every occurrence.
   */
  correlate(event: RecordedEvent, now: Date): Correlation {
    const at = now.getTime();
    const object = objectKey(event.involvedObject);
    const { key, message } = this.aggregate(object, event, at);
    let seen = this.logged.get(key);
    const action = seen === undefined ? 'create' : 'count';
    if (seen === undefined) {
      seen = { name: this.nameFor(event.involvedObject, at), count: 1, firstTimestamp: now.toISOString() };
    } else {
      seen.count += 1;
    }
    this.logged.set(key, seen);
    if (!this.takeToken(JSON.stringify([object, event.type]), at)) return { action: 'drop' };
    return { action, key, message, ...seen };
  }

  /**
   * The Event of `key` is gone (expired, or removed by someone): it is written anew under a new
   * name, keeping its count and first occurrence. Answers that name.
   */
  renew(key: string, involvedObject: ObjectReference, now: Date): string {
    const name = this.nameFor(involvedObject, now.getTime());
    const seen = this.logged.get(key);
    if (seen !== undefined) seen.name = name;
    return name;
  }

  private nameFor(reference: ObjectReference, at: number): string {
    // client-go's name: the object's and the time in hexadecimal nanoseconds, unique per recorder.
    this.sequence = (this.sequence + 1) % 1_000_000;
    const nanos = BigInt(at) * 1_000_000n + BigInt(this.sequence);
    return `${reference.name ?? 'object'}.${nanos.toString(16)}`;
  }

  private takeToken(key: string, at: number): boolean {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, refilledAt: at };
    const refills = Math.floor((at - bucket.refilledAt) / this.refillIntervalMs);
    if (refills > 0) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + refills);
      bucket.refilledAt += refills * this.refillIntervalMs;
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  private aggregate(object: string, event: RecordedEvent, at: number): { key: string; message: string } {
    const aggregateKey = JSON.stringify([object, event.type, event.reason]);
    let similar = this.similar.get(aggregateKey);
    if (similar === undefined || at - similar.lastAt > this.similarWindowMs) {
      similar = { messages: new Set(), lastAt: at };
    }
    similar.messages.add(event.message);
    similar.lastAt = at;
    this.similar.set(aggregateKey, similar);
    if (similar.messages.size >= this.similarMessages) {
      return { key: aggregateKey, message: `${COMBINED_PREFIX}${event.message}` };
    }
    return { key: JSON.stringify([aggregateKey, event.message]), message: event.message };
  }
}
