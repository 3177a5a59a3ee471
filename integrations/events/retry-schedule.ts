/** When a failed delivery is tried again. */

export interface RetrySchedule {
  /** The first retry waits up to this long; each further one doubles it. */
  baseMs: number;
  /** No wait exceeds this, however many attempts failed. */
  capMs: number;
  /** Attempts before the event is given up as dead. */
  maxAttempts: number;
}

/** Waits of 1 s doubling up to 5 min: eight attempts span about ten minutes at most. */
export const DEFAULT_BACKOFF: Pick<RetrySchedule, 'baseMs' | 'capMs'> = { baseMs: 1_000, capMs: 300_000 };

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(cap, base·2^(attempt-1))).
 * Spreading retries over the whole window keeps many senders from hammering a recovering
 * receiver in step.
 */
export function backoffDelayMs(attempt: number, schedule: RetrySchedule, random: () => number): number {
  const ceiling = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** A `Retry-After` value (delay seconds or an HTTP date) as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
