import type { ServerResponse } from 'node:http';
import { setImmediate } from 'node:timers';
import type pg from 'pg';
import type { HttpConfig } from '../../config/http.js';
import { nameStatement } from '../../data-plane/postgres.js';
import { presetHeader } from '../../observability/http-response.js';
import type { Logger } from '../../observability/logger.js';

/**
 * A PostgreSQL round trip slower than this falls back to this replica's in-memory counts rather
 * than holding the requests.
 */
const STORE_TIMEOUT_MS = 500;

/** How often a replica deletes the rows of callers whose windows have both ended. */
const SWEEP_INTERVAL_MS = 5 * 60_000;

const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;

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

export interface WindowReading {
  allowed: boolean;
  remaining: number;
  msBeforeReset: number;
}

/** One request's readings of both windows. */
interface Readings {
  minute: WindowReading;
  second: WindowReading;
}

/** Both windows of every caller: counts one request (or, with `counted: false`, only reads). */
interface Budget {
  read(key: string, counted: boolean): Readings | Promise<Readings>;
}

export interface RateLimiterOptions {
  limits: HttpConfig['rateLimit'];
  /** When present, counts live in PostgreSQL and replicas share them. */
  pgPool?: pg.Pool | undefined;
  logger: Logger;
  now: () => Date;
}

/**
 * Where a request stands in a window of `points` requests per `durationMs`: `used` requests
 * counted in it so far (this one included when it is counted), `msLeft` until it ends (0 or less:
 * it has ended, so the caller starts afresh). Reading never refuses: probes are answered whatever
 * the budget.
 */
export function windowReading(
  points: number,
  durationMs: number,
  used: number,
  msLeft: number,
  counted: boolean,
): WindowReading {
  if (msLeft <= 0) return { allowed: true, remaining: points, msBeforeReset: durationMs };
  return {
    allowed: !counted || used <= points,
    remaining: Math.max(0, points - used),
    msBeforeReset: msLeft,
  };
}

/**
 * Fixed windows counted in this process, synchronously: the budget every request passes through
 * must not cost a promise and a timer per call. Windows that ended are swept once per duration.
 */
class MemoryWindow {
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
    if (counted) {
      if (count === undefined || count.resetAt <= now) {
        count = { used: 0, resetAt: now + this.durationMs };
        this.counts.set(key, count);
      }
      count.used += 1;
    }
    return windowReading(
      this.points,
      this.durationMs,
      count?.used ?? 0,
      (count?.resetAt ?? now) - now,
      counted,
    );
  }

  private sweep(now: number): void {
    for (const [key, count] of this.counts) if (count.resetAt <= now) this.counts.delete(key);
    this.nextSweep = now + this.durationMs;
  }
}

/** Both windows counted in this process. */
class MemoryBudget implements Budget {
  private readonly minute: MemoryWindow;
  private readonly second: MemoryWindow;

  constructor(limits: HttpConfig['rateLimit']) {
    this.minute = new MemoryWindow(limits.perMinute, MINUTE_MS);
    this.second = new MemoryWindow(limits.perSecond, SECOND_MS);
  }

  read(key: string, counted: boolean): Readings {
    return { minute: this.minute.read(key, counted), second: this.second.read(key, counted) };
  }
}

/** A caller's row as the statements below answer it: counts, and milliseconds left (0: ended). */
interface CountsRow {
  key: string;
  minute_used: number;
  minute_ms_left: number;
  second_used: number;
  second_ms_left: number;
}

const ANSWERED_COUNTS = `key, minute_used, greatest(minute_ends_at - $1, 0)::integer as minute_ms_left,
  second_used, greatest(second_ends_at - $1, 0)::integer as second_ms_left`;

/**
 * Counts `$3[i]` requests against the caller `$2[i]` in both windows, opening a window afresh where
 * it has ended by `$1` (Unix ms), and answers the rows as they stand after. Keys come sorted, so
 * replicas counting the same callers at once take their rows' locks in one order.
 */
const COUNT_STATEMENT = `insert into rate_limit_counts as counts
  (key, minute_used, minute_ends_at, second_used, second_ends_at)
  select key, requests, $1::bigint + ${MINUTE_MS}, requests, $1::bigint + ${SECOND_MS}
  from unnest($2::text[], $3::integer[]) as batch(key, requests)
on conflict (key) do update set
  minute_used = case when counts.minute_ends_at <= $1 then excluded.minute_used
    else counts.minute_used + excluded.minute_used end,
  minute_ends_at = case when counts.minute_ends_at <= $1 then excluded.minute_ends_at
    else counts.minute_ends_at end,
  second_used = case when counts.second_ends_at <= $1 then excluded.second_used
    else counts.second_used + excluded.second_used end,
  second_ends_at = case when counts.second_ends_at <= $1 then excluded.second_ends_at
    else counts.second_ends_at end
returning ${ANSWERED_COUNTS}`;

/** Reads the rows of the callers `$2` as they stand at `$1` (Unix ms); a caller without one has none. */
const READ_STATEMENT = `select ${ANSWERED_COUNTS} from rate_limit_counts where key = any($2::text[])`;

const SWEEP_STATEMENT = 'delete from rate_limit_counts where minute_ends_at < $1 and second_ends_at < $1';

// Sent on every request: each connection parses and plans them once.
nameStatement(COUNT_STATEMENT);
nameStatement(READ_STATEMENT);

/** The requests of one turn of the event loop, by caller, each waiting for its readings. */
type Group = Map<string, ((readings: Readings) => void)[]>;

/**
 * Both windows kept in PostgreSQL (`rate_limit_counts`), shared by the replicas. The requests of
 * one turn of the event loop are counted together: one statement adds each caller's requests and
 * answers the counts after, from which each request takes its own place in the order, exactly as
 * if they had been counted one by one. Probes are read together in the same way. Whenever
 * PostgreSQL errs or is slower than `STORE_TIMEOUT_MS`, this replica's in-memory counts stand in.
 */
class PostgresBudget implements Budget {
  private counting: Group = new Map();
  private probing: Group = new Map();
  private readonly fallback: MemoryBudget;
  private nextSweep = Date.now() + SWEEP_INTERVAL_MS;
  private failing = false;

  constructor(
    private readonly limits: HttpConfig['rateLimit'],
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {
    this.fallback = new MemoryBudget(limits);
  }

  read(key: string, counted: boolean): Promise<Readings> {
    return new Promise((resolve) => {
      if (this.counting.size === 0 && this.probing.size === 0) setImmediate(() => this.flush());
      const group = counted ? this.counting : this.probing;
      const waiting = group.get(key);
      if (waiting) waiting.push(resolve);
      else group.set(key, [resolve]);
    });
  }

  private flush(): void {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    const counting = this.counting;
    const probing = this.probing;
    this.counting = new Map();
    this.probing = new Map();
    if (counting.size > 0) void this.answer(counting, true, now);
    if (probing.size > 0) void this.answer(probing, false, now);
  }

  private async answer(group: Group, counted: boolean, now: number): Promise<void> {
    const keys = [...group.keys()].sort();
    const rows = counted
      ? await this.query(COUNT_STATEMENT, [now, keys, keys.map((key) => group.get(key)!.length)])
      : await this.query(READ_STATEMENT, [now, keys]);
    const byKey = new Map(rows?.map((row) => [row.key, row]));
    for (const [key, waiting] of group) {
      const row = byKey.get(key);
      waiting.forEach((resolve, place) => {
        if (rows === undefined) resolve(this.fallback.read(key, counted));
        // The requests counted before this one in the group, and this one, are in the row's count.
        else resolve(this.readings(row, counted ? place + 1 - waiting.length : 0, counted));
      });
    }
  }

  /** A request's readings from its caller's row, `offset` (0 or less) added to the counts. */
  private readings(row: CountsRow | undefined, offset: number, counted: boolean): Readings {
    return {
      minute: windowReading(
        this.limits.perMinute,
        MINUTE_MS,
        (row?.minute_used ?? 0) + offset,
        row?.minute_ms_left ?? 0,
        counted,
      ),
      second: windowReading(
        this.limits.perSecond,
        SECOND_MS,
        (row?.second_used ?? 0) + offset,
        row?.second_ms_left ?? 0,
        counted,
      ),
    };
  }

  /** The statement's rows, or undefined when PostgreSQL erred or was too slow. */
  private async query(text: string, values: unknown[]): Promise<CountsRow[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((resolve) => {
      timer = setTimeout(resolve, STORE_TIMEOUT_MS, 'slow');
    });
    try {
      const answer = await Promise.race([this.pool.query<CountsRow>(text, values), slow]);
      if (answer === 'slow') throw new Error(`PostgreSQL took longer than ${STORE_TIMEOUT_MS} ms`);
      if (this.failing) this.logger.info('rate-limit counts are shared by the replicas again');
      this.failing = false;
      return answer.rows;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: error }, 'cannot count in PostgreSQL; counting per replica');
      this.failing = true;
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Deletes the rows whose windows have both ended: such a caller starts afresh without them. */
  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    this.pool.query(SWEEP_STATEMENT, [now]).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'cannot sweep the rate-limit counts');
    });
  }
}

/**
 * Two budgets per caller: a per-minute standard rate and a per-second burst. A request must fit
 * both. Counts are in memory by default and in PostgreSQL when the data plane is PostgreSQL; if
 * PostgreSQL fails or is slow, each replica counts in memory until it recovers.
 */
export class RequestRateLimiter {
  private readonly budget: Budget;

  constructor(private readonly options: RateLimiterOptions) {
    this.budget = options.pgPool
      ? new PostgresBudget(options.limits, options.pgPool, options.logger)
      : new MemoryBudget(options.limits);
  }

  /**
   * Counts one request against `key` and reports where the caller stands. With `counted: false`
   * it only reads the counts: for probes, which must never be throttled. In memory it answers at
   * once; in PostgreSQL it answers a promise.
   */
  admit(key: string, counted: boolean): RateLimitStatus | Promise<RateLimitStatus> {
    const readings = this.budget.read(key, counted);
    return readings instanceof Promise ? readings.then((read) => this.status(read)) : this.status(readings);
  }

  private status({ minute, second }: Readings): RateLimitStatus {
    const allowed = minute.allowed && second.allowed;
    return {
      allowed,
      limit: this.options.limits.perMinute,
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
