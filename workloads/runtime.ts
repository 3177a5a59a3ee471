/**
 * The workload runtime: what a managed data service needs outside the platform's process. A
 * controller decides what should exist and asks; the runtime makes it so and reports what is
 * there. Two implementations: `local` (this machine) and `kubernetes` (a cluster).
 */
import type { DatabaseEngineName } from '../crds/database-engines/index.js';
import type { ScramCredential } from '../security/scram.js';

/** Whether a workload really runs, or is only kept as a record of what was asked. */
export type Realization = 'real' | 'recorded';

export type DatabaseEngine = DatabaseEngineName;

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

export type StreamingTier = 'starter' | 'pro' | 'enterprise';

/** What a tier allows, from the spec's tier table; null where the tier's value is custom. */
export interface StreamingLimits {
  brokers: number;
  partitions: number | null;
  storageBytes: number | null;
  /** The longest retention a topic may have, in ms; null: any, including forever (-1). */
  retentionMaxMs: number | null;
}

/** An event-streaming cluster as the runtime sees it. */
export interface StreamingClusterWorkload {
  /** `esc_…`: ports, files and names derive from it. */
  id: string;
  organization: string;
  tier: StreamingTier;
  limits: StreamingLimits;
}

export type CleanupPolicy = 'delete' | 'compact';

/**
 * Kafka's Long.MAX_VALUE, the default of `flush.messages` and `flush.ms` (no limit), kept as
 * Infinity, as is any count past 2^53 (none is ever reached).
 */
export const KAFKA_LONG_MAX = Number.POSITIVE_INFINITY;
const LONG_MAX_TEXT = '9223372036854775807';

/** A Kafka long config value as a number (Long.MAX_VALUE: KAFKA_LONG_MAX); undefined when not a long. */
export function kafkaLongOf(text: string): number | undefined {
  if (!/^-?\d+$/.test(text)) return undefined;
  const parsed = BigInt(text);
  if (parsed > BigInt(LONG_MAX_TEXT) || parsed < -BigInt(LONG_MAX_TEXT) - 1n) return undefined;
  return parsed > BigInt(Number.MAX_SAFE_INTEGER) ? KAFKA_LONG_MAX : Number(parsed);
}

/** A Kafka long config value as Kafka writes it. */
export function kafkaLongText(value: number): string {
  return value === KAFKA_LONG_MAX ? LONG_MAX_TEXT : String(value);
}

export interface StreamingTopicSpec {
  /** Kafka's rules: `[a-zA-Z0-9._-]`, at most 249 characters. */
  name: string;
  partitions: number;
  replicas: number;
  /** ms; -1: forever. */
  retentionMs: number;
  cleanupPolicy: CleanupPolicy;
  /**
   * Kafka's `flush.messages` and `flush.ms` (Infinity: Long.MAX_VALUE); absent: the platform's
   * default, every append durable before it is answered.
   */
  flushMessages?: number;
  flushMs?: number;
}

export interface PartitionObservation {
  partition: number;
  leader: number;
  logStartOffset: number;
  logEndOffset: number;
  sizeBytes: number;
}

export interface TopicObservation extends StreamingTopicSpec {
  partitionDetails: PartitionObservation[];
  createdAt: string;
}

export type { ScramCredential };

export type AclOperation = 'read' | 'write' | 'describe' | 'create' | 'delete' | 'alter' | 'idempotent_write';

export interface StreamingAcl {
  /** `cluster` is the one resource named `kafka-cluster`, as in Kafka. */
  resourceType: 'topic' | 'group' | 'transactional_id' | 'cluster';
  patternType: 'literal' | 'prefixed';
  name: string;
  operations: AclOperation[];
  permission: 'allow' | 'deny';
}

export interface StreamingUserSpec {
  name: string;
  credential: ScramCredential;
  /**
   * The password itself, for a runtime that derives its own credential (Strimzi salts it anew);
   * the embedded broker keeps only `credential`.
   */
  password?: string;
  /** A group id, or a prefix ending in `*`, the user may consume as. */
  consumerGroup?: string;
  acls: StreamingAcl[];
}

export interface StreamingClusterObservation {
  realization: Realization;
  state: WorkloadState;
  message?: string;
  /** `host:port` of each broker, as clients reach them. */
  bootstrapServers: string[];
  /** PEM of the authority the brokers' certificates chain to. */
  caCertificate: string;
  usage: { storageBytes: number; partitions: number };
}

export interface GroupMemberObservation {
  memberId: string;
  clientId: string;
  host: string;
  assignments: { topic: string; partitions: number[] }[];
}

export interface GroupObservation {
  groupId: string;
  /** Kafka's: `Empty`, `PreparingRebalance`, `CompletingRebalance`, `Stable`, `Dead`. */
  state: string;
  protocol: string;
  members: GroupMemberObservation[];
  topics: string[];
}

export type LagStatus = 'OK' | 'WARN' | 'ERR' | 'STOP' | 'STALL';

export interface PartitionLag {
  topic: string;
  partition: number;
  committedOffset: number;
  logEndOffset: number;
  lag: number;
  timeLagSeconds: number;
  status: LagStatus;
}

export interface GroupLag {
  groupId: string;
  totalLag: number;
  status: LagStatus;
  timeLagSeconds: number;
  partitions: PartitionLag[];
}

/** Event-streaming clusters: an embedded Kafka-protocol broker locally, Strimzi in a cluster. */
export interface StreamingRuntime {
  /**
   * Calls `listener` with a cluster's id whenever its topics or its users' ACLs change, also over
   * the Kafka protocol (a topic made, altered, grown or deleted by a client; ACLs created or
   * deleted), for a runtime whose brokers can tell; returns what stops it.
   */
  watchChanges?(listener: (clusterId: string) => void): () => void;
  /** Each user's ACLs as the brokers hold them, for a runtime whose brokers change them. */
  listUserAcls?(cluster: StreamingClusterWorkload): Promise<{ name: string; acls: StreamingAcl[] }[]>;
  /** Starts (or adopts) the cluster's brokers; idempotent. */
  ensureCluster(cluster: StreamingClusterWorkload): Promise<StreamingClusterObservation>;
  /** Closes its ports and removes its data. Idempotent. */
  removeCluster(cluster: StreamingClusterWorkload): Promise<void>;
  /** Creates the topic or brings it to the spec (partitions only grow). Throws `WorkloadError` when refused. */
  ensureTopic(cluster: StreamingClusterWorkload, topic: StreamingTopicSpec): Promise<TopicObservation>;
  removeTopic(cluster: StreamingClusterWorkload, name: string): Promise<void>;
  /** Every topic, those made over the Kafka protocol too. */
  listTopics(cluster: StreamingClusterWorkload): Promise<TopicObservation[]>;
  ensureUser(cluster: StreamingClusterWorkload, user: StreamingUserSpec): Promise<void>;
  removeUser(cluster: StreamingClusterWorkload, name: string): Promise<void>;
  listGroups(cluster: StreamingClusterWorkload): Promise<GroupObservation[]>;
  groupLag(cluster: StreamingClusterWorkload, groupId: string): Promise<GroupLag | undefined>;
  /**
   * Recent records of a topic, read as the platform (no consumer group, nothing committed);
   * undefined when the brokers have no such topic. Throws `WorkloadError` where the runtime
   * cannot read records.
   */
  readRecords(
    cluster: StreamingClusterWorkload,
    topic: string,
    request: RecordsRequest,
  ): Promise<TopicRecord[] | undefined>;
}

/** Which records a message browser asks for. */
export interface RecordsRequest {
  /** One partition, or every partition. */
  partition?: number;
  /** From this offset on (in each partition asked); absent, the last `limit` records. */
  offset?: number;
  limit: number;
  /** Stop once keys and values pass this many bytes; the first record is always returned. */
  maxBytes: number;
}

export interface TopicRecord {
  partition: number;
  offset: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

/** Kafka Connect's states, as its REST API reports connectors and tasks. */
export type ConnectorRunState = 'UNASSIGNED' | 'RUNNING' | 'PAUSED' | 'STOPPED' | 'FAILED' | 'RESTARTING';

/** The internal user a cluster's Connect workers reach its brokers as, and what its connectors need. */
export interface ConnectUserSpec {
  /** A reserved name (`cloudplane-connect.…`) that no API user holds. */
  name: string;
  /** The connectors' topics and groups; the runtime adds its own storage topics and group. */
  acls: StreamingAcl[];
}

export interface ConnectorSpec {
  /** Kafka Connect's connector name. */
  name: string;
  class: string;
  tasksMax: number;
  /** The configuration in clear, without `name`, `connector.class`, `tasks.max` and the secrets. */
  config: Record<string, string>;
  /** The values of PASSWORD-type keys: kept where only the workers read them, never in an object's spec. */
  secrets: Record<string, string>;
  state: 'running' | 'paused' | 'stopped';
}

export interface ConnectTaskObservation {
  id: number;
  state: ConnectorRunState;
  worker_id: string;
  trace?: string;
}

/** A connector as the Connect REST API answers its status, and what the runtime adds. */
export interface ConnectorObservation {
  connector: { state: ConnectorRunState; worker_id: string; trace?: string };
  tasks: ConnectTaskObservation[];
  /** The topics the connector has used, as Connect reports them. */
  topics: string[];
}

export interface ConnectorRestart {
  /** Restart the tasks too (`includeTasks`), or only the instances that failed (`onlyFailed`). */
  includeTasks: boolean;
  onlyFailed: boolean;
}

/**
 * Kafka Connect workers run beside the cluster (cluster mode: Strimzi's KafkaConnect and one
 * KafkaConnector per connector). Absent on a runtime whose connectors run in the platform process.
 */
export interface ConnectRuntime {
  /** The cluster's Connect workers, connecting as `user`; idempotent. */
  ensureConnectCluster(cluster: StreamingClusterWorkload, user: ConnectUserSpec): Promise<void>;
  /** The workers, their connectors and their user. Idempotent. */
  removeConnectCluster(cluster: StreamingClusterWorkload, user: string): Promise<void>;
  /** Creates the connector or brings it to the spec (configuration, secrets, state). Throws `WorkloadError` when refused. */
  ensureConnector(cluster: StreamingClusterWorkload, connector: ConnectorSpec): Promise<void>;
  removeConnector(cluster: StreamingClusterWorkload, name: string): Promise<void>;
  /** The names of the connectors the runtime holds for the cluster. */
  listConnectors(cluster: StreamingClusterWorkload): Promise<string[]>;
  /** What the workers report; undefined when the runtime holds no such connector. */
  observeConnector(
    cluster: StreamingClusterWorkload,
    name: string,
  ): Promise<ConnectorObservation | undefined>;
  restartConnector(cluster: StreamingClusterWorkload, name: string, restart: ConnectorRestart): Promise<void>;
  restartTask(cluster: StreamingClusterWorkload, name: string, task: number): Promise<void>;
}

export interface WorkloadRuntime {
  readonly kind: 'local' | 'kubernetes';
  readonly databases: DatabaseRuntime;
  readonly shares: ShareRuntime;
  /** Stacks' bootstrap jobs. */
  readonly jobs: JobRuntime;
  /** Stacks' helm services. */
  readonly releases: ReleaseRuntime;
  /** Event-streaming clusters. */
  readonly streaming: StreamingRuntime;
  /** Connect workers beside the clusters; absent: connectors run in the platform process. */
  readonly connect?: ConnectRuntime;
  /** Removes a backup's artifact (retention, DELETE). Idempotent. */
  removeBackup(artifact: BackupArtifact): Promise<void>;
  /** Stops what runs in this process (private servers, supervised processes). */
  close(): Promise<void>;
}
