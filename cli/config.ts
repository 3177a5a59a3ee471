import path from 'node:path';
import type { LevelWithSilent } from 'pino';

/** Everything the process reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  /** `postgres://…` for PostgreSQL; absent means the SQLite file in the data dir. */
  databaseUrl: string | undefined;
  kubeconfig: string | undefined;
  logLevel: LevelWithSilent;
  bodyLimitBytes: number;
  rateLimit: { perMinute: number; perSecond: number };
  garbageCollection: { dryRun: boolean; retentionDays: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got: string,
  ) {
    super(`${variable}: expected ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, 'true or false', raw);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  return raw;
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

/** Reads and checks the environment; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.CLOUDPLANE_HOST?.trim() || '127.0.0.1';
  const dataDir = path.resolve(env.CLOUDPLANE_DATA_DIR?.trim() || './.cloudplane');
  const baseUrl = (url(env, 'CLOUDPLANE_BASE_URL', ['http', 'https']) ?? `http://127.0.0.1:${port}`).replace(
    /\/+$/,
    '',
  );
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres', 'postgresql']);
  const kubeconfig = env.KUBECONFIG?.trim() || undefined;
  const logLevelRaw = (env.CLOUDPLANE_LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LevelWithSilent)) {
    throw new ConfigError('CLOUDPLANE_LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevelRaw);
  }
  return {
    port,
    host,
    dataDir,
    baseUrl,
    databaseUrl,
    kubeconfig,
    logLevel: logLevelRaw as LevelWithSilent,
    bodyLimitBytes: byteSize(env, 'CLOUDPLANE_BODY_LIMIT', 1024 ** 2),
    rateLimit: {
      perMinute: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_MINUTE', 1000, 1, 10_000_000),
      perSecond: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
    },
    garbageCollection: {
      dryRun: boolean(env, 'CLOUDPLANE_GC_DRY_RUN', true),
      retentionDays: integer(env, 'CLOUDPLANE_GC_RETENTION_DAYS', 30, 1, 3650),
    },
  };
}
