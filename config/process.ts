import path from 'node:path';
import type { LevelWithSilent } from 'pino';
import { ConfigError, integer, url, type Env } from './env.js';

/** What the composition roots open and where: files, databases, clusters, logs. */
export interface ProcessConfig {
  dataDir: string;
  /** `postgres://…` for PostgreSQL; absent means the SQLite files in the data dir. */
  databaseUrl: string | undefined;
  /** The kubeconfig cluster mode reads (`KUBECONFIG`); the Kubernetes client reads it itself. */
  kubeconfig: string | undefined;
  logLevel: LevelWithSilent;
  /** The HTTPS port of the embedded Kubernetes API (kubectl sends tokens only over TLS). */
  kubeApiPort: number;
}

const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function processConfig(env: Env): ProcessConfig {
  const logLevel = (env.CLOUDPLANE_LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LevelWithSilent)) {
    throw new ConfigError('CLOUDPLANE_LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevel);
  }
  return {
    dataDir: path.resolve(env.CLOUDPLANE_DATA_DIR?.trim() || './.cloudplane'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
    kubeconfig: env.KUBECONFIG?.trim() || undefined,
    logLevel: logLevel as LevelWithSilent,
    kubeApiPort: integer(env, 'CLOUDPLANE_KUBE_API_PORT', 6443, 0, 65535),
  };
}
