/**
 * The workload runtime: what a managed data service needs outside the platform's process. A
 * controller decides what should exist and asks; the runtime makes it so and reports what is
 * there. Two implementations: `local` (this machine) and `kubernetes` (a cluster).
 */

/** Whether a workload really runs, or is only kept as a record of what was asked. */
export type Realization = 'real' | 'recorded';

export const DATABASE_ENGINES = ['postgresql', 'mysql', 'redis', 'mongodb'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

/** A database as the runtime sees it: names derive from `id`, which is unique platform-wide. */
export interface DatabaseWorkload {
  /** `db_…`: the role, database, process and file names derive from it. */
  id: string;
  /** The organization (its namespace); two organizations never share a role or a database. */
  organization: string;
  engine: DatabaseEngine;
  /** The major version asked for; absent: the runtime's default for the engine. */
  version?: string;
  /** Relational and document engines. */
  storageGb?: number;
  /** Redis: `maxmemory`, in MiB. */
  memoryMb?: number;
}

/** How a client reaches a database. The password is the caller's: the runtime never keeps it. */
export interface DatabaseAccess {
  host: string;
  port: number;
  username: string;
  /** The database name (PostgreSQL, MySQL, MongoDB) or number (Redis). */
  database: string;
  /** A URL a client library or command-line client accepts, with the password in it. */
  connectionString: string;
}

export type WorkloadState =
  /** Running and reachable with the credentials it was given. */
  | 'ready'
  /** On its way; ask again later. */
  | 'provisioning'
  /** It existed and is not reachable now (its server is gone, its process died). */
  | 'degraded'
  /** Only recorded: nothing runs (see `message` for what is missing). */
  | 'recorded';

export interface DatabaseObservation {
  realization: Realization;
  state: WorkloadState;
  /** Why recorded or degraded, in words a user can act on. */
  message?: string;
  /** Present when real. */
  access?: DatabaseAccess;
  /** The engine version actually running, e.g. `15.18`. */
  version?: string;
  /** Bytes the data takes on the server (database size, used memory for Redis). */
  storageUsedBytes?: number;
}

/**
 * A request the server refused or could not be carried out (admin URL wrong, port pool
 * exhausted, an unknown version). `message` carries the server's reason; nothing half-made is left.
 */
export class WorkloadError extends Error {
  constructor(
    /** CamelCase, for a condition's reason: `ServerUnreachable`, `PortPoolExhausted`, … */
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WorkloadError';
  }
}

/** The outcome of a backup: where the runtime keeps it (opaque to callers) and its real size. */
export interface BackupArtifact {
  location: string;
  sizeBytes: number;
}

export interface DatabaseRuntime {
  /**
   * Makes the database exist with this password, creating it or setting the password again
   * (which is how rotation happens and how drift is repaired); grows storage or memory to the
   * workload's. Idempotent. Throws `WorkloadError` when the server refuses.
   */
  ensure(workload: DatabaseWorkload, password: string): Promise<DatabaseObservation>;
  /** What is there now, changing nothing: used to refresh status. */
  observe(workload: DatabaseWorkload, password: string): Promise<DatabaseObservation>;
  /** Drops the database and its role, or stops its process and removes its files. Idempotent. */
  remove(workload: DatabaseWorkload): Promise<void>;
  /** A full dump (`pg_dump -Fc`, `mysqldump`, Redis `BGSAVE` copy) kept under `backupId`. */
  backup(workload: DatabaseWorkload, password: string, backupId: string): Promise<BackupArtifact>;
  /** Loads a dump of the same engine into `target`, replacing what it holds. */
  restore(artifact: BackupArtifact, target: DatabaseWorkload, password: string): Promise<void>;
}

export interface ShareWorkload {
  /** `nfs_…` */
  id: string;
  organization: string;
  sizeGb: number;
}

export interface ShareObservation {
  realization: Realization;
  state: WorkloadState;
  message?: string;
  /** Where a client mounts it from. */
  mount?: { server: string; path: string };
  usedBytes: number;
}

export interface ShareRuntime {
  ensure(workload: ShareWorkload): Promise<ShareObservation>;
  observe(workload: ShareWorkload): Promise<ShareObservation>;
  remove(workload: ShareWorkload): Promise<void>;
  backup(workload: ShareWorkload, backupId: string): Promise<BackupArtifact>;
  restore(artifact: BackupArtifact, target: ShareWorkload): Promise<void>;
}

/** A one-shot job a stack runs (bootstrap): a command in an image, with the variables given. */
export interface JobWorkload {
  /** Unique platform-wide (`<stack id>-<job name>-<execution id>`): the process, Job and Secret names derive from it. */
  id: string;
  organization: string;
  image: string;
  command: string[];
  /** The environment it gets, references already resolved; values may be secrets and are never logged. */
  env: Record<string, string>;
  timeoutMs: number;
}

export type JobState = 'running' | 'succeeded' | 'failed' | 'recorded';

export interface JobObservation {
  realization: Realization;
  state: JobState;
  /** The process's or container's exit code once it ended; null while running, when recorded, or killed by a signal. */
  exitCode: number | null;
  /** Why recorded or failed (timeout, image ignored, signal), in words a user can act on. */
  message?: string;
  startedAt?: string;
  completedAt?: string;
}

export interface JobRuntime {
  /**
   * Starts the job unless one with this id was already started (then it is observed, never run
   * twice). Returns at once; the job goes on in the background.
   */
  start(job: JobWorkload): Promise<JobObservation>;
  /** What became of it; undefined when no job with this id is known (never started, or lost with a restart). */
  observe(job: JobWorkload): Promise<JobObservation | undefined>;
  /** What it printed (stdout and stderr interleaved), capped; empty when recorded. */
  logs(job: JobWorkload): Promise<string>;
  /** Stops it if it runs and forgets it (its process, Job, Secret, temp dir). Idempotent. */
  remove(job: JobWorkload): Promise<void>;
}

/** A helm release a stack's service becomes. */
export interface ReleaseWorkload {
  /** Unique platform-wide; the release name derives from it (53 characters at most). */
  id: string;
  organization: string;
  /** A chart in the configured charts directory, a path inside it, or an `oci://` or `https://` reference. */
  chart: string;
  version?: string;
  /** References already resolved. */
  values: Record<string, unknown>;
  timeoutMs: number;
}

export interface ReleaseObservation {
  realization: Realization;
  /** `ready`: installed and ready (cluster); `recorded`: rendered and kept, nothing runs. */
  state: 'ready' | 'recorded';
  message?: string;
  release: string;
  namespace: string;
  /** The rendered manifest (what `helm template` printed, or the installed release's manifest). */
  manifest: string;
  revision?: number;
}

export interface ReleaseRuntime {
  /** Installs or upgrades the release (cluster) or renders it (local). Throws `WorkloadError` when helm refuses. */
  install(release: ReleaseWorkload): Promise<ReleaseObservation>;
  /** Uninstalls it. Idempotent. */
  uninstall(release: ReleaseWorkload): Promise<void>;
}

export interface WorkloadRuntime {
  readonly kind: 'local' | 'kubernetes';
  readonly databases: DatabaseRuntime;
  readonly shares: ShareRuntime;
  /** Stacks' bootstrap jobs. */
  readonly jobs: JobRuntime;
  /** Stacks' helm services. */
  readonly releases: ReleaseRuntime;
  /** Removes a backup's artifact (retention, DELETE). Idempotent. */
  removeBackup(artifact: BackupArtifact): Promise<void>;
  /** Stops what runs in this process (private servers, supervised processes). */
  close(): Promise<void>;
}
