import type { Condition, KubeObject } from '../control-plane/types.js';
import {
  GROUP,
  READY_MESSAGE_COLUMN,
  READY_REASON_COLUMN,
  VERSION,
  type KindDescriptor,
} from '../control-plane/kind-descriptor.js';
import {
  allOfferedVersions,
  databaseEngineNames,
  type DatabaseEngineName,
  type DatabaseVersion,
} from './database-engines/index.js';

export type { DatabaseEngineName, DatabaseVersion } from './database-engines/index.js';

/** Whether the thing really runs, or is only kept as a record of what was asked. */
export type RealizationName = 'real' | 'recorded';

/** Backups taken on a schedule, kept for a number of days. */
export interface BackupScheduleSpec {
  /** Five-field cron expression, in UTC. */
  cron: string;
  /**
   * Days a scheduled backup is kept.
   * @asType integer
   * @minimum 1
   * @maximum 3650
   */
  retentionDays: number;
}

/**
 * A managed database. Its password and connection string live in the organization's managed vault
 * cluster (see status.credentials), never in this object.
 */
export interface DatabaseSpec {
  /** The display name, unique in the organization. */
  name: string;
  engine: DatabaseEngineName;
  /**
   * The major version asked for, one its engine offers (`GET /v1/databases/versions`); absent: the
   * runtime's default for the engine.
   */
  version?: DatabaseVersion;
  /** A plan name, kept for billing. */
  plan?: string;
  /**
   * Storage of relational and document engines, in GB; it only grows.
   * @asType integer
   * @minimum 1
   */
  storageGb?: number;
  /**
   * Redis memory, in MiB; it only grows.
   * @asType integer
   * @minimum 1
   */
  memoryMb?: number;
  backupSchedule?: BackupScheduleSpec;
  /**
   * Raised by one to ask for a new password; the controller rotates and reports it in
   * status.credentials.rotation.
   * @asType integer
   * @minimum 0
   */
  credentialsRotation?: number;
}

export type DatabasePhase = 'provisioning' | 'available' | 'recorded' | 'degraded' | 'deleting' | 'error';

export interface Endpoint {
  host: string;
  /** @asType integer */
  port: number;
}

export interface CredentialsReference {
  /** The organization's managed vault cluster. */
  vaultClusterId: string;
  /** The KV v2 path of the secret in that cluster. */
  vaultPath: string;
  /**
   * The secret version the database's password is at.
   * @asType integer
   */
  version?: number;
  /**
   * The spec.credentialsRotation this password answers.
   * @asType integer
   */
  rotation?: number;
}

export interface DatabaseStatus {
  phase?: DatabasePhase;
  realization?: RealizationName;
  /** Why recorded, degraded or in error. */
  message?: string;
  /** The engine version actually running. */
  version?: string;
  endpoint?: Endpoint;
  credentials?: CredentialsReference;
  /** @asType integer */
  storageUsedMb?: number;
  /** When the schedule last made a backup. */
  lastScheduledBackup?: string;
  /** When the schedule makes the next one. */
  nextScheduledBackup?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type Database = KubeObject<DatabaseSpec, DatabaseStatus>;

export const DATABASE: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'Database',
  plural: 'databases',
  singular: 'database',
  namespaced: true,
  shortNames: ['db'],
  categories: ['cloudplane', 'all'],
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Engine', type: 'string', jsonPath: '.spec.engine' },
    { name: 'Version', type: 'string', jsonPath: '.status.version' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Realization', type: 'string', jsonPath: '.status.realization' },
    { name: 'Host', type: 'string', jsonPath: '.status.endpoint.host', priority: 1 },
    { name: 'Port', type: 'integer', jsonPath: '.status.endpoint.port', priority: 1 },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/data-services.ts',
  specEnums: () => ({ engine: databaseEngineNames(), version: allOfferedVersions() }),
};

/** A shared file system for an organization's workloads. */
export interface NfsShareSpec {
  name: string;
  /**
   * The soft quota, in GB; it only grows.
   * @asType integer
   * @minimum 1
   */
  sizeGb: number;
  /** The VPC it is offered in. */
  vpcId?: string;
}

export type NfsSharePhase = 'provisioning' | 'available' | 'deleting' | 'error';

export interface NfsShareStatus {
  phase?: NfsSharePhase;
  realization?: RealizationName;
  message?: string;
  mount?: { server: string; path: string };
  /** @asType integer */
  usedMb?: number;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type NfsShare = KubeObject<NfsShareSpec, NfsShareStatus>;

export const NFS_SHARE: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'NfsShare',
  plural: 'nfsshares',
  singular: 'nfsshare',
  namespaced: true,
  shortNames: ['nfs'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Size GB', type: 'integer', jsonPath: '.spec.sizeGb' },
    { name: 'Used MB', type: 'integer', jsonPath: '.status.usedMb' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Path', type: 'string', jsonPath: '.status.mount.path', priority: 1 },
    READY_MESSAGE_COLUMN,
  ],
  typesFile: 'crds/data-services.ts',
};

export type BackupSourceKind = 'Database' | 'NfsShare';

/** A copy of a database or share, kept past the source's deletion until it expires. */
export interface BackupSpec {
  source: {
    kind: BackupSourceKind;
    /** The source object's name (its REST id). */
    name: string;
  };
  /**
   * Days the backup is kept after it completes.
   * @asType integer
   * @minimum 1
   * @maximum 3650
   */
  retentionDays: number;
}

export type BackupPhase = 'pending' | 'running' | 'completed' | 'failed';

export interface BackupStatus {
  phase?: BackupPhase;
  /** What the source was when the backup ran, for restores after it is gone. */
  sourceEngine?: string;
  sourceDisplayName?: string;
  /** Where the runtime keeps the artifact. */
  location?: string;
  /** @asType integer */
  sizeBytes?: number;
  startedAt?: string;
  completedAt?: string;
  expiresAt?: string;
  message?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type Backup = KubeObject<BackupSpec, BackupStatus>;

export const BACKUP: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'Backup',
  plural: 'backups',
  singular: 'backup',
  namespaced: true,
  shortNames: ['bkp'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Source', type: 'string', jsonPath: '.spec.source.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Size', type: 'integer', jsonPath: '.status.sizeBytes' },
    { name: 'Expires', type: 'string', jsonPath: '.status.expiresAt' },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/data-services.ts',
};

/** Loads a backup into a database or share of the same kind. */
export interface RestoreSpec {
  /** The backup's name. */
  backup: string;
  /** The database or share the backup is loaded into; what it holds is replaced. */
  target: string;
}

export type RestorePhase = 'running' | 'completed' | 'failed';

export interface RestoreStatus {
  phase?: RestorePhase;
  message?: string;
  startedAt?: string;
  completedAt?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type Restore = KubeObject<RestoreSpec, RestoreStatus>;

export const RESTORE: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'Restore',
  plural: 'restores',
  singular: 'restore',
  namespaced: true,
  shortNames: ['rst'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Backup', type: 'string', jsonPath: '.spec.backup' },
    { name: 'Target', type: 'string', jsonPath: '.spec.target' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    READY_MESSAGE_COLUMN,
  ],
  typesFile: 'crds/data-services.ts',
};

export const DATA_SERVICE_KINDS = [DATABASE, NFS_SHARE, BACKUP, RESTORE];
