import { ConfigError, integer, url, type Env } from './env.js';

/**
 * Where users reach the platform: `CLOUDPLANE_BASE_URL` when configured, otherwise the listener's
 * own address once it is bound. Links and addresses are built from it when asked for, so they
 * follow the port actually bound (`PORT=0`).
 */
export class PublicUrl {
  #href: string;

  constructor(
    /** The configured URL without trailing slashes, or undefined for the default. */
    readonly configured: string | undefined,
    port: number,
  ) {
    this.#href = configured ?? `http://127.0.0.1:${port}`;
  }

  /** The base of every link the platform hands out, without a trailing slash. */
  get href(): string {
    return this.#href;
  }

  /** Takes the bound listener's address, unless a URL was configured. */
  follow(listenerUrl: string): void {
    if (this.configured === undefined) this.#href = listenerUrl.replace(/\/+$/, '');
  }

  toString(): string {
    return this.#href;
  }
}

/** The REST facade's listener and edge: address, public URL, body and rate limits, proxies. */
export interface HttpConfig {
  host: string;
  port: number;
  publicUrl: PublicUrl;
  bodyLimitBytes: number;
  /**
   * Which proxies' `X-Forwarded-For` to believe: `false` (none), a hop count, or addresses and
   * CIDRs. Without it, every anonymous caller behind an ingress shares the ingress's rate limit.
   */
  trustProxy: boolean | number | string[];
  rateLimit: { perMinute: number; perSecond: number };
  /** When set, `/metrics` answers only `Authorization: Bearer <this token>`. */
  metricsToken: string | undefined;
}

/** `false`, `true`, a hop count, or a comma list of addresses and CIDRs (Express's `trust proxy`). */
function trustProxy(env: Env): boolean | number | string[] {
  const name = 'CLOUDPLANE_TRUST_PROXY';
  const raw = env[name]?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const address = /^[0-9a-f:.]+(\/\d{1,3})?$/i;
  if (entries.every((entry) => address.test(entry) && (entry.includes('.') || entry.includes(':'))))
    return entries;
  throw new ConfigError(name, 'false, true, a hop count, or comma-separated addresses and CIDRs', raw);
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2 };

function byteSize(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw.trim());
  const bytes = match ? Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 64 * 1024 ** 2) {
    throw new ConfigError(name, 'a size from 1kb to 64mb (for example 1mb or 262144)', raw);
  }
  return bytes;
}

function metricsToken(env: Env): string | undefined {
  const name = 'CLOUDPLANE_METRICS_TOKEN';
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) {
    throw new ConfigError(name, 'at least 16 printable characters without spaces', '(not shown)');
  }
  return raw;
}

export function httpConfig(env: Env): HttpConfig {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  return {
    host: env.CLOUDPLANE_HOST?.trim() || '127.0.0.1',
    port,
    publicUrl: new PublicUrl(url(env, 'CLOUDPLANE_BASE_URL', ['http', 'https'])?.replace(/\/+$/, ''), port),
    bodyLimitBytes: byteSize(env, 'CLOUDPLANE_BODY_LIMIT', 1024 ** 2),
    trustProxy: trustProxy(env),
    rateLimit: {
      perMinute: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_MINUTE', 1000, 1, 10_000_000),
      perSecond: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
    },
    metricsToken: metricsToken(env),
  };
}
