import path from 'node:path';
import { ConfigError, integer, url, type Env } from './env.js';

/** Where managed data services run and what the local runtime may use on this machine. */
export interface WorkloadsConfig {
  /** Private servers, per-database processes, share directories and backups live under it. */
  dir: string;
  /** The host name clients are given in endpoints and connection strings. */
  advertisedHost: string;
  /** An existing PostgreSQL to create databases on; absent: a private one from the embedded binaries. */
  postgresAdminUrl: string | undefined;
  /** An existing MySQL or MariaDB; absent: a private `mariadbd` when the binary is on the machine. */
  mysqlAdminUrl: string | undefined;
  /** An existing MongoDB; absent: MongoDB databases are only recorded. */
  mongodbAdminUrl: string | undefined;
  /** Ports the per-database Redis processes listen on, inclusive. */
  redisPorts: { first: number; last: number };
  /** The largest Redis `maxmemory` an organization may ask for, in MiB. */
  maxMemoryMb: number;
  /** The largest storage a database or share may ask for, in GB. */
  maxStorageGb: number;
}

function portRange(env: Env, name: string, fallback: string): { first: number; last: number } {
  const raw = env[name]?.trim() || fallback;
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(raw);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1024 || last > 65535 || first > last) {
    throw new ConfigError(name, 'a port range such as 16379-16479 (from 1024 to 65535)', raw);
  }
  return { first, last };
}

export function workloadsConfig(env: Env, place: { dataDir: string }): WorkloadsConfig {
  return {
    dir: path.join(place.dataDir, 'workloads'),
    advertisedHost: env.CLOUDPLANE_WORKLOAD_HOST?.trim() || '127.0.0.1',
    postgresAdminUrl: url(env, 'CLOUDPLANE_POSTGRES_ADMIN_URL', ['postgres', 'postgresql']),
    mysqlAdminUrl: url(env, 'CLOUDPLANE_MYSQL_ADMIN_URL', ['mysql', 'mariadb']),
    mongodbAdminUrl: url(env, 'CLOUDPLANE_MONGODB_ADMIN_URL', ['mongodb']),
    redisPorts: portRange(env, 'CLOUDPLANE_REDIS_PORTS', '16379-16478'),
    maxMemoryMb: integer(env, 'CLOUDPLANE_DATABASE_MAX_MEMORY_MB', 4096, 16, 1_048_576),
    maxStorageGb: integer(env, 'CLOUDPLANE_DATABASE_MAX_STORAGE_GB', 1024, 1, 65_536),
  };
}
