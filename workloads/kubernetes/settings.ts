/** What the kubernetes runtime is built with, besides the store and the logger. */

/** Where dumps are kept and how PostgreSQL is backed up. */
export interface BackupStorage {
  /**
   * `dump`: a Job runs `pg_dump` into the backup claim, as for the other engines, and restores
   * with `pg_restore`. `volumeSnapshot`, `barmanObjectStore`: a CloudNativePG `Backup` with that
   * method; its Cluster gets `cnpgBackup` as `spec.backup`. CloudNativePG restores such a
   * backup only into a new Cluster, so `restore` refuses it.
   */
  postgresqlMethod: 'dump' | 'volumeSnapshot' | 'barmanObjectStore';
  /** The Cluster's `spec.backup` for the CloudNativePG methods (e.g. `{volumeSnapshot: {className}}`). */
  cnpgBackup?: Record<string, unknown>;
  /** The claim in each organization's namespace that dumps are written to; made on first use. */
  claimName: string;
  claimSize: string;
  /** Absent: the cluster's default StorageClass. */
  storageClass?: string;
  /** `ReadWriteMany` lets dump Jobs of one namespace run on any node at once. */
  accessMode: 'ReadWriteOnce' | 'ReadWriteMany';
}

export interface KubernetesSettings {
  /** The StorageClass of shares (it must offer ReadWriteMany); absent: the cluster's default. */
  storageClass?: string;
  /**
   * Images by repository and tag that replace an engine's own (`KubernetesEngine.image`), under
   * the engine's name; a workload's `version` replaces the tag.
   */
  images: Readonly<Record<string, string>>;
  /** Share archives, their measurement and the removal of dumps: `sh`, `tar`, `find`, `stat`. */
  toolsImage: string;
  postgresInstances: number;
  backupStorage: BackupStorage;
  /** How long `ensure` waits for the workload to be ready before answering `provisioning`. */
  readyWaitMs: number;
  /** How long a backup, restore or measurement Job may take. */
  jobTimeoutMs: number;
  pollIntervalMs: number;
}

export const DEFAULT_SETTINGS: KubernetesSettings = {
  images: {},
  toolsImage: 'busybox:1.36',
  postgresInstances: 1,
  backupStorage: {
    postgresqlMethod: 'dump',
    claimName: 'cloudplane-backups',
    claimSize: '20Gi',
    accessMode: 'ReadWriteOnce',
  },
  readyWaitMs: 0,
  jobTimeoutMs: 15 * 60_000,
  pollIntervalMs: 2_000,
};
