import type pg from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { HttpConfig } from '../../config/http.js';
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

interface Window {
  limiter: RateLimiterAbstract;
  points: number;
  durationMs: number;
  /** Settles once the window can count: at once in memory, after table creation in PostgreSQL. */
  ready: Promise<void>;
}

interface WindowReading {
  allowed: boolean;
  remaining: number;
  msBeforeReset: number;
}

export interface RateLimiterOptions {
  limits: HttpConfig['rateLimit'];
  /** When present, counts live in PostgreSQL and replicas share them. */
  pgPool?: pg.Pool | undefined;
  logger: Logger;
  now: () => Date;
}

function openWindow(
  name: string,
  points: number,
  seconds: number,
  pgPool: pg.Pool | undefined,
  logger: Logger,
): Window {
  const memory = new RateLimiterMemory({ keyPrefix: name, points, duration: seconds });
  const durationMs = seconds * 1000;
  if (!pgPool) return { limiter: memory, points, durationMs, ready: Promise.resolve() };
  let postgres: RateLimiterPostgres | undefined;
  const ready = new Promise<void>((resolve) => {
    // Until the table exists, and whenever PostgreSQL errs, the insurance limiter counts instead.
    postgres = new RateLimiterPostgres(
      {
        storeClient: pgPool,
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        keyPrefix: name,
        points,
        duration: seconds,
        insuranceLimiter: memory,
      },
      (error?: unknown) => {
        if (error) logger.error({ err: error }, 'cannot create the rate-limit table; counting per replica');
        resolve();
      },
    );
  });
  const limiter = new RLWrapperTimeouts({ limiter: postgres!, timeoutMs: STORE_TIMEOUT_MS });
  return { limiter, points, durationMs, ready };
}

/**
 * Two budgets per caller: a per-minute standard rate and a per-second burst. A request must fit
 * both. Counts are in memory by default and in PostgreSQL when the data plane is PostgreSQL; if
 * PostgreSQL fails or is slow, each replica counts in memory until it recovers.
 */
export class RequestRateLimiter {
  private readonly minute: Window;
  private readonly second: Window;
  private readonly ready: Promise<unknown>;

  constructor(private readonly options: RateLimiterOptions) {
    const { limits, pgPool, logger } = options;
    this.minute = openWindow('minute', limits.perMinute, 60, pgPool, logger);
    this.second = openWindow('second', limits.perSecond, 1, pgPool, logger);
    this.ready = Promise.all([this.minute.ready, this.second.ready]);
  }

  /**
   * Counts one request against `key` and reports where the caller stands. With `counted: false`
   * it only reads the counts: for probes, which must never be throttled.
   */
  async admit(key: string, counted: boolean): Promise<RateLimitStatus> {
    await this.ready;
    const [minute, second] = await Promise.all([
      this.read(this.minute, key, counted),
      this.read(this.second, key, counted),
    ]);
    const allowed = minute.allowed && second.allowed;
    const waits = [minute, second].filter((reading) => !reading.allowed).map((r) => r.msBeforeReset);
    return {
      allowed,
      limit: this.minute.points,
      remaining: minute.remaining,
      resetAt: Math.ceil((this.options.now().getTime() + minute.msBeforeReset) / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(Math.max(...waits) / 1000)),
    };
  }

  private async read(window: Window, key: string, counted: boolean): Promise<WindowReading> {
    if (!counted) {
      const current = await window.limiter.get(key);
      return current
        ? { allowed: true, remaining: current.remainingPoints, msBeforeReset: current.msBeforeNext }
        : { allowed: true, remaining: window.points, msBeforeReset: window.durationMs };
    }
    try {
      const result = await window.limiter.consume(key);
      return { allowed: true, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { allowed: false, remaining: 0, msBeforeReset: refusal.msBeforeNext };
    }
  }
}

/** The `X-RateLimit-*` headers every response carries. */
export function rateLimitHeaders(status: RateLimitStatus): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(status.limit),
    'X-RateLimit-Remaining': String(status.remaining),
    'X-RateLimit-Reset': String(status.resetAt),
  };
}
