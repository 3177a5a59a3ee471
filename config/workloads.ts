import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commaList, ConfigError, integer, providerUrl, requiredWith, url, type Env } from './env.js';

/** What the kubernetes runtime creates (cluster mode). */
export interface KubernetesWorkloadsConfig {
  /** The StorageClass of shares; it must offer ReadWriteMany. Absent: the cluster's default. */
  shareStorageClass: string | undefined;
  /** CloudNativePG instances per PostgreSQL database. */
  postgresInstances: number;
  /** The claim each organization's dumps are written to. */
  backupClaimSize: string;
  backupStorageClass: string | undefined;
  /**
   * Images that replace the runtime's defaults, by lower-case name, from each
   * `CLOUDPLANE_KUBE_IMAGE_<NAME>`: a database engine's under the engine's name (each engine
   * module holds its own default), and `tools` for the runtime's own Jobs.
   */
  images: Readonly<Record<string, string>>;
}

/** An S3-compatible bucket the local runtime keeps backups in, addressed path-style. */
export interface BackupBucketConfig {
  /** The service's URL, e.g. `https://s3.eu-central-1.amazonaws.com` or a MinIO's. */
  endpoint: string;
  bucket: string;
  /** The region requests are signed for; most S3-compatible servers accept `us-east-1`. */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Put before every object key, so the bucket may hold other things too. */
  prefix: string;
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
  /** Ports the streaming clusters' brokers listen on (TLS), inclusive; one per broker. */
  streamingPorts: { first: number; last: number };
  /** The largest Redis `maxmemory` an organization may ask for, in MiB. */
  maxMemoryMb: number;
  /** The largest storage a database or share may ask for, in GB. */
  maxStorageGb: number;
  /** Where the local runtime's backups go; absent: files under `<dir>/backups`. */
  backupBucket: BackupBucketConfig | undefined;
  /** Whether the local runtime runs stacks' bootstrap jobs as local processes (else only records them). */
  localJobs: boolean;
  /** The most of a job's output the local runtime keeps, in bytes. */
  jobLogLimitBytes: number;
  /** The helm executable; absent: stacks' helm services are recorded without a manifest. */
  helmBinary: string | undefined;
  /** Where charts named without a scheme are looked up; absent: only remote charts are taken. */
  chartsDir: string | undefined;
  /** URL prefixes (`oci://…/`, `https://…/`) a remote chart must start with; empty: none is taken. */
  chartRepositories: string[];
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

const IMAGE_PREFIX = 'CLOUDPLANE_KUBE_IMAGE_';

/** Every image the environment names; which names the runtime runs is the runtime's to check. */
function configuredImages(env: Env): Record<string, string> {
  const images: Record<string, string> = {};
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(IMAGE_PREFIX) || !value?.trim()) continue;
    images[variable.slice(IMAGE_PREFIX.length).toLowerCase()] = value.trim();
  }
  return images;
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
    images: configuredImages(env),
  };
}

const BUCKET_URL = 'CLOUDPLANE_BACKUP_S3_URL';
const BUCKET_NAME = 'CLOUDPLANE_BACKUP_S3_BUCKET';
const ACCESS_KEY_ID = 'CLOUDPLANE_BACKUP_S3_ACCESS_KEY_ID';
const SECRET_ACCESS_KEY = 'CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY';

/**
 * All or nothing: a bucket URL needs the bucket's name and both keys, and any of those without
 * the URL is a mistake to report rather than backups silently kept on local disk.
 */
function backupBucketConfig(env: Env): BackupBucketConfig | undefined {
  if (!env[BUCKET_URL]?.trim()) {
    const stray = [BUCKET_NAME, ACCESS_KEY_ID, SECRET_ACCESS_KEY].find((name) => env[name]?.trim());
    if (stray) requiredWith(env, BUCKET_URL, stray);
    return undefined;
  }
  const raw = env[BUCKET_URL].trim();
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  // Checked before the scheme, whose error would echo the URL with the credentials in it.
  if (parsed && (parsed.username || parsed.password || parsed.search || parsed.hash)) {
    throw new ConfigError(BUCKET_URL, 'a URL without credentials, query or fragment', parsed.origin);
  }
  const endpoint = new URL(providerUrl(env, BUCKET_URL, ''));
  const bucket = requiredWith(env, BUCKET_NAME, BUCKET_URL);
  // Path-style URLs carry the name as one path segment, so only DNS-style names are taken.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(BUCKET_NAME, 'an S3 bucket name (3 to 63 of a-z, 0-9, . and -)', bucket);
  }
  const region = text(env, 'CLOUDPLANE_BACKUP_S3_REGION', 'us-east-1');
  if (!/^[a-z0-9-]+$/.test(region)) {
    throw new ConfigError('CLOUDPLANE_BACKUP_S3_REGION', 'a region such as us-east-1', region);
  }
  const prefix = text(env, 'CLOUDPLANE_BACKUP_S3_PREFIX', 'cloudplane-backups/');
  if (prefix.startsWith('/')) {
    throw new ConfigError('CLOUDPLANE_BACKUP_S3_PREFIX', 'a key prefix that does not start with /', prefix);
  }
  return {
    endpoint: `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}`,
    bucket,
    region,
    accessKeyId: requiredWith(env, ACCESS_KEY_ID, BUCKET_URL),
    secretAccessKey: requiredWith(env, SECRET_ACCESS_KEY, BUCKET_URL),
    prefix,
  };
}

/** `enabled` or `disabled`: running commands on the platform's host is a choice said out loud. */
function enabled(env: Env, name: string): boolean {
  const raw = env[name]?.trim() || 'disabled';
  if (raw !== 'enabled' && raw !== 'disabled') throw new ConfigError(name, 'enabled or disabled', raw);
  return raw === 'enabled';
}

/**
 * The nearest folder at or above this module holding a package.json: the repository when running
 * from source (`config/`), the package when running from `dist/config/`.
 */
function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of `name` in the folders of `searchPath` (a `PATH` value), if any holds it. */
export function executableOnPath(name: string, searchPath: string | undefined): string | undefined {
  return (searchPath ?? '')
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.join(dir, name))
    .find(isExecutableFile);
}

/** The configured helm, else the one `npm run tools` put beside the package, else one on the PATH. */
function helmBinary(env: Env): string | undefined {
  const configured = env.CLOUDPLANE_HELM_BINARY?.trim();
  if (configured) return configured;
  const root = packageRoot();
  const pinned = root && path.join(root, '.tools', 'bin', 'helm');
  if (pinned && isExecutableFile(pinned)) return pinned;
  return executableOnPath('helm', env.PATH);
}

/** Each an `oci://` or `https://` prefix ending in `/`, so `https://a.example` cannot admit `https://a.example.evil`. */
function chartRepositories(env: Env): string[] {
  const name = 'CLOUDPLANE_STACK_CHART_REPOSITORIES';
  return commaList(env[name]).map((entry) => {
    const parsed = URL.canParse(entry) ? new URL(entry) : undefined;
    const usable =
      parsed &&
      (parsed.protocol === 'oci:' || parsed.protocol === 'https:') &&
      parsed.hostname !== '' &&
      !parsed.username &&
      !parsed.password &&
      !parsed.search &&
      !parsed.hash;
    if (!usable) {
      throw new ConfigError(
        name,
        'oci:// or https:// URL prefixes without credentials, query or fragment',
        entry,
      );
    }
    return entry.endsWith('/') ? entry : `${entry}/`;
  });
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
    streamingPorts: portRange(env, 'CLOUDPLANE_STREAMING_PORTS', '19092-19391'),
    maxMemoryMb: integer(env, 'CLOUDPLANE_DATABASE_MAX_MEMORY_MB', 4096, 16, 1_048_576),
    maxStorageGb: integer(env, 'CLOUDPLANE_DATABASE_MAX_STORAGE_GB', 1024, 1, 65_536),
    backupBucket: backupBucketConfig(env),
    localJobs: enabled(env, 'CLOUDPLANE_LOCAL_JOBS'),
    jobLogLimitBytes: integer(env, 'CLOUDPLANE_JOB_LOG_LIMIT_BYTES', 1_048_576, 1024, 67_108_864),
    helmBinary: helmBinary(env),
    chartsDir: env.CLOUDPLANE_STACK_CHARTS_DIR?.trim()
      ? path.resolve(env.CLOUDPLANE_STACK_CHARTS_DIR.trim())
      : undefined,
    chartRepositories: chartRepositories(env),
  };
}
