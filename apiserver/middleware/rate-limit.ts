import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { HttpConfig } from '../../config/http.js';
import { presetHeader } from '../../observability/http-response.js';
import type { Logger } from '../../observability/logger.js';

/** Shared by every replica; both windows live in it under their own key prefix. */
export const RATE_LIMIT_TABLE = 'cloudplane_rate_limits';

/**
 * A PostgreSQL round trip slower than this falls back to this replica's in-memory counts rather
 * than holding the request.
 */
const STORE_TIMEOUT_MS = 500;

/** Where a caller stands, as the `X-RateLimit-*` headers report it. */
export interface RateLimitStatus {
  allowed: boolean;
  /** The per-minute limit. */
  limit: number;
  /** Requests left in the current minute window. */
  remaining: number;
  /** Unix seconds at which the minute window resets. */
  resetAt: number;
  /** Whole seconds until a refused caller may retry. */
  retryAfterSeconds: number;
}

interface WindowReading {
  allowed: boolean;
  remaining: number;
  msBeforeReset: number;
}

/** One budget: `points` requests per `durationMs`, counted per key. */
interface Window {
  points: number;
  durationMs: number;
  /** Counts one request (or, with `counted: false`, only reads the count). */
  read(key: string, counted: boolean): WindowReading | Promise<WindowReading>;
}

export interface RateLimiterOptions {
  limits: HttpConfig['rateLimit'];
  /** When present, counts live in PostgreSQL and replicas share them. */
  pgPool?: pg.Pool | undefined;
  logger: Logger;
  now: () => Date;
}

/**
 * Fixed windows counted in this process, synchronously: the budget every request passes through
 * must not cost a promise and a timer per call. Windows that ended are swept once per duration.
 */
class MemoryWindow implements Window {
  private readonly counts = new Map<string, { used: number; resetAt: number }>();
  private nextSweep = 0;

  constructor(
    readonly points: number,
    readonly durationMs: number,
  ) {}

  read(key: string, counted: boolean): WindowReading {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    let count = this.counts.get(key);
    if (count === undefined || count.resetAt <= now) {
      if (!counted) return { allowed: true, remaining: this.points, msBeforeReset: this.durationMs };
      count = { used: 0, resetAt: now + this.durationMs };
      this.counts.set(key, count);
    }
    if (counted) count.used += 1;
    // Reading never refuses: probes are answered whatever the budget.
    const allowed = !counted || count.used <= this.points;
    return { allowed, remaining: Math.max(0, this.points - count.used), msBeforeReset: count.resetAt - now };
  }

  private sweep(now: number): void {
    for (const [key, count] of this.counts) if (count.resetAt <= now) this.counts.delete(key);
    this.nextSweep = now + this.durationMs;
  }
}

/**
 * A window kept in PostgreSQL, shared by the replicas. Until its table exists, and whenever
 * PostgreSQL errs or is slower than `STORE_TIMEOUT_MS`, this replica's in-memory counts stand in.
 */
class PostgresWindow implements Window {
  readonly durationMs: number;
  private readonly limiter: RateLimiterAbstract;
  private readonly ready: Promise<void>;

  constructor(
    name: string,
    readonly points: number,
    seconds: number,
    pgPool: pg.Pool,
    logger: Logger,
  ) {
    this.durationMs = seconds * 1000;
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix: name, points, duration: seconds });
    let postgres: RateLimiterPostgres | undefined;
    this.ready = new Promise<void>((resolve) => {
      postgres = new RateLimiterPostgres(
        {
          storeClient: pgPool,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          keyPrefix: name,
          points,
          duration: seconds,
          insuranceLimiter,
        },
        (error?: unknown) => {
          if (error) logger.error({ err: error }, 'cannot create the rate-limit table; counting per replica');
          resolve();
        },
      );
    });
    this.limiter = new RLWrapperTimeouts({ limiter: postgres!, timeoutMs: STORE_TIMEOUT_MS });
  }

  async read(key: string, counted: boolean): Promise<WindowReading> {
    await this.ready;
    if (!counted) {
      const current = await this.limiter.get(key);
      return current
        ? { allowed: true, remaining: current.remainingPoints, msBeforeReset: current.msBeforeNext }
        : { allowed: true, remaining: this.points, msBeforeReset: this.durationMs };
    }
    try {
      const result = await this.limiter.consume(key);
      return { allowed: true, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { allowed: false, remaining: 0, msBeforeReset: refusal.msBeforeNext };
    }
  }
}

function openWindow(name: string, points: number, seconds: number, options: RateLimiterOptions): Window {
  return options.pgPool
    ? new PostgresWindow(name, points, seconds, options.pgPool, options.logger)
    : new MemoryWindow(points, seconds * 1000);
}

/**
 * Two budgets per caller: a per-minute standard rate and a per-second burst. A request must fit
 * both. Counts are in memory by default and in PostgreSQL when the data plane is PostgreSQL; if
 * PostgreSQL fails or is slow, each replica counts in memory until it recovers.
 */
export class RequestRateLimiter {
  private readonly minute: Window;
  private readonly second: Window;

  constructor(private readonly options: RateLimiterOptions) {
    this.minute = openWindow('minute', options.limits.perMinute, 60, options);
    this.second = openWindow('second', options.limits.perSecond, 1, options);
  }

  /**
   * Counts one request against `key` and reports where the caller stands. With `counted: false`
   * it only reads the counts: for probes, which must never be throttled. In memory it answers at
   * once; in PostgreSQL it answers a promise.
   */
  admit(key: string, counted: boolean): RateLimitStatus | Promise<RateLimitStatus> {
    const minute = this.minute.read(key, counted);
    const second = this.second.read(key, counted);
    if (minute instanceof Promise || second instanceof Promise) {
      return Promise.all([minute, second]).then(([m, s]) => this.status(m, s));
    }
    return this.status(minute, second);
  }

  private status(minute: WindowReading, second: WindowReading): RateLimitStatus {
    const allowed = minute.allowed && second.allowed;
    return {
      allowed,
      limit: this.minute.points,
      remaining: minute.remaining,
      resetAt: Math.ceil((this.options.now().getTime() + minute.msBeforeReset) / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(longestWait(minute, second) / 1000)),
    };
  }
}

/** How long until every refusing window has reset: worked out only for a refusal, not per request. */
function longestWait(...readings: WindowReading[]): number {
  let wait = 0;
  for (const reading of readings) if (!reading.allowed) wait = Math.max(wait, reading.msBeforeReset);
  return wait;
}

/** The `X-RateLimit-*` headers every response carries. */
export function setRateLimitHeaders(res: ServerResponse, status: RateLimitStatus): void {
  presetHeader(res, 'X-RateLimit-Limit', String(status.limit));
  presetHeader(res, 'X-RateLimit-Remaining', String(status.remaining));
  presetHeader(res, 'X-RateLimit-Reset', String(status.resetAt));
}
