import path from 'node:path';
import { ConfigError, integer, url, type Env } from './env.js';

/** What the kubernetes runtime creates (cluster mode). */
export interface KubernetesWorkloadsConfig {
  /** The StorageClass of shares; it must offer ReadWriteMany. Absent: the cluster's default. */
  shareStorageClass: string | undefined;
  /** CloudNativePG instances per PostgreSQL database. */
  postgresInstances: number;
  /** The claim each organization's dumps are written to. */
  backupClaimSize: string;
  backupStorageClass: string | undefined;
  images: { postgresql: string; mysql: string; redis: string; mongodb: string; tools: string };
}

/** Where managed data services run and what the local runtime may use on this machine. */
export interface WorkloadsConfig {
  /**
   * `local`: on this machine (the embedded default). `kubernetes`: as objects in each
   * organization's namespace, run by the cluster (CloudNativePG, StatefulSets, PVCs).
   */
  runtime: 'local' | 'kubernetes';
  kubernetes: KubernetesWorkloadsConfig;
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

function text(env: Env, name: string, fallback: string): string {
  return env[name]?.trim() || fallback;
}

function kubernetesConfig(env: Env): KubernetesWorkloadsConfig {
  const claimSize = text(env, 'CLOUDPLANE_KUBE_BACKUP_CLAIM_SIZE', '20Gi');
  if (!/^\d+(Mi|Gi|Ti)$/.test(claimSize)) {
    throw new ConfigError('CLOUDPLANE_KUBE_BACKUP_CLAIM_SIZE', 'a size such as 20Gi', claimSize);
  }
  return {
    shareStorageClass: env.CLOUDPLANE_KUBE_SHARE_STORAGE_CLASS?.trim() || undefined,
    postgresInstances: integer(env, 'CLOUDPLANE_KUBE_POSTGRES_INSTANCES', 1, 1, 9),
    backupClaimSize: claimSize,
    backupStorageClass: env.CLOUDPLANE_KUBE_BACKUP_STORAGE_CLASS?.trim() || undefined,
    images: {
      postgresql: text(env, 'CLOUDPLANE_KUBE_IMAGE_POSTGRESQL', 'ghcr.io/cloudnative-pg/postgresql:16'),
      mysql: text(env, 'CLOUDPLANE_KUBE_IMAGE_MYSQL', 'mariadb:10.11'),
      redis: text(env, 'CLOUDPLANE_KUBE_IMAGE_REDIS', 'redis:7'),
      mongodb: text(env, 'CLOUDPLANE_KUBE_IMAGE_MONGODB', 'mongo:7'),
      tools: text(env, 'CLOUDPLANE_KUBE_IMAGE_TOOLS', 'busybox:1.36'),
    },
  };
}

export function workloadsConfig(env: Env, place: { dataDir: string }): WorkloadsConfig {
  const runtimeName = 'CLOUDPLANE_WORKLOAD_RUNTIME';
  const runtime = text(env, runtimeName, 'local');
  if (runtime !== 'local' && runtime !== 'kubernetes')
    throw new ConfigError(runtimeName, 'local or kubernetes', runtime);
  return {
    runtime,
    kubernetes: kubernetesConfig(env),
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
