import {
  BACKUP,
  DATABASE,
  NFS_SHARE,
  type Backup,
  type BackupStatus,
  type Database,
  type NfsShare,
} from '../../crds/data-services.js';
import { WorkloadError, type BackupArtifact } from '../../workloads/runtime.js';
import type { KubeObject } from '../../control-plane/types.js';
import type { CacheReader, ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { readCredentials } from './credentials.js';
import type { DataServicesControllerOptions } from './database-controller.js';
import { backupStatus, expiresAt } from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, quotaExceededMessage, releaseQuota } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { databaseWorkload, shareWorkload } from './workloads-of.js';
import { restIdOf, workloadIdOf } from '../../crds/ids.js';

const GIGABYTE = 1024 ** 3;
const HOUR_MS = 3_600_000;

/** What a backup run ends in: the artifact, or why there is none. */
type Outcome =
  { artifact: BackupArtifact; engine: string } | { failure: string } | { waitMs: number; message: string };

/**
 * Reconciles Backups: runs the dump once (again after a restart that interrupted it), records its
 * real size and expiry, deletes the backup when its retention has passed (as Velero's garbage
 * collection does), and removes the artifact when the object goes. A backup outlives its source.
 */
export function backupController(options: DataServicesControllerOptions): ControllerDefinition {
  const { runtime, vault, database: dataPlane } = options;
  const reconcile: Reconciler = async ({ namespace = '', name }, { store, cache, clock, logger }) => {
    let backup = cache.get<Backup>(BACKUP, namespace, name);
    if (!backup?.spec) return;
    const now = clock.now();
    const generation = backup.metadata.generation;
    const backupId = workloadIdOf('bkp', namespace, name);
    if (backup.metadata.deletionTimestamp) {
      if (!holdsFinalizer(backup)) return;
      if (backup.status?.location) {
        await runtime.removeBackup({
          location: backup.status.location,
          sizeBytes: backup.status.sizeBytes ?? 0,
        });
      }
      await releaseQuota(dataPlane, namespace, backupId);
      await removeFinalizer(store, BACKUP, backup);
      return;
    }
    const phase = backup.status?.phase;
    if (phase === 'completed' || phase === 'failed') {
      const expiry = backup.status?.expiresAt ? new Date(backup.status.expiresAt) : undefined;
      if (expiry && expiry.getTime() <= now.getTime()) {
        logger.info({ expiresAt: backup.status?.expiresAt }, 'backup expired: deleting it');
        await store.delete(BACKUP, namespace, name);
        return;
      }
      if (phase === 'completed') {
        await recordUsage(
          dataPlane,
          [
            {
              organization: namespace,
              meter: 'backup.storage_gb_hours',
              unit: 'GB-hour',
              resourceType: 'backup',
              resourceId: restIdOf(name),
              resourceName: backup.status?.sourceDisplayName ?? backup.spec.source.name,
              quantity: (backup.status?.sizeBytes ?? 0) / GIGABYTE,
            },
          ],
          now,
        );
      }
      return {
        requeueAfterMs: Math.min(HOUR_MS, Math.max(1_000, (expiry?.getTime() ?? Infinity) - now.getTime())),
      };
    }

    backup = await addFinalizer(store, BACKUP, backup);
    const claim = await claimQuota(
      dataPlane,
      options.quotas,
      { namespace, resourceId: backupId, amounts: { backups: 1 } },
      now,
    );
    const fail = async (message: string) => {
      await writeStatusIfChanged(
        store,
        BACKUP,
        backup!,
        backupStatus(
          backup!.status,
          'failed',
          {
            message,
            completedAt: now.toISOString(),
            expiresAt: expiresAt(now, backup!.spec!.retentionDays).toISOString(),
          },
          { generation, now },
        ),
      );
    };
    if (claim.outcome === 'exceeded') {
      await fail(quotaExceededMessage(claim));
      return;
    }

    const startedAt = backup.status?.startedAt ?? now.toISOString();
    const outcome = await run();
    if ('waitMs' in outcome) {
      await writeStatusIfChanged(
        store,
        BACKUP,
        backup,
        backupStatus(backup.status, 'pending', { message: outcome.message }, { generation, now }),
      );
      return { requeueAfterMs: outcome.waitMs };
    }
    if ('failure' in outcome) {
      logger.warn({ err: outcome.failure }, 'backup failed');
      await fail(outcome.failure);
      return;
    }
    const completedAt = clock.now();
    const fields: Partial<BackupStatus> = {
      startedAt,
      completedAt: completedAt.toISOString(),
      expiresAt: expiresAt(completedAt, backup.spec!.retentionDays).toISOString(),
      location: outcome.artifact.location,
      sizeBytes: outcome.artifact.sizeBytes,
      sourceEngine: outcome.engine,
      message: `a ${outcome.engine} backup of ${outcome.artifact.sizeBytes} bytes`,
    };
    await writeStatusIfChanged(
      store,
      BACKUP,
      backup,
      backupStatus(backup.status, 'completed', fields, { generation, now: completedAt }),
    );
    logger.info({ sizeBytes: outcome.artifact.sizeBytes }, 'backup completed');
    return { requeueAfterMs: HOUR_MS };

    async function run(): Promise<Outcome> {
      const source = backup!.spec!.source;
      try {
        if (source.kind === 'NfsShare') {
          const share = cache.get<NfsShare>(NFS_SHARE, namespace, source.name);
          if (!share?.spec) return { failure: `the share ${restIdOf(source.name)} does not exist` };
          if (share.status?.phase !== 'available')
            return { waitMs: 2_000, message: 'waiting for the share to be available' };
          await markRunning(share.spec.name, 'nfs');
          return { artifact: await runtime.shares.backup(shareWorkload(share), backupId), engine: 'nfs' };
        }
        const database = cache.get<Database>(DATABASE, namespace, source.name);
        if (!database?.spec) return { failure: `the database ${restIdOf(source.name)} does not exist` };
        if (database.status?.realization === 'recorded') {
          return {
            failure: `the database is only recorded (${database.status.message ?? 'nothing runs'}): there is no data to back up`,
          };
        }
        if (database.status?.phase !== 'available')
          return { waitMs: 2_000, message: 'waiting for the database to be available' };
        const credentials = await readCredentials(vault, namespace, databaseWorkload(database).id);
        if (!credentials) return { waitMs: 2_000, message: 'waiting for the database credentials' };
        await markRunning(database.spec.name, database.spec.engine);
        const artifact = await runtime.databases.backup(
          databaseWorkload(database),
          credentials.password,
          backupId,
        );
        return { artifact, engine: database.spec.engine };
      } catch (error) {
        if (error instanceof WorkloadError) return { failure: error.message };
        throw error;
      }
    }

    async function markRunning(displayName: string, engine: string) {
      backup = await writeStatusIfChanged(
        store,
        BACKUP,
        backup!,
        backupStatus(
          backup!.status,
          'running',
          { startedAt, sourceDisplayName: displayName, sourceEngine: engine, message: 'the dump is running' },
          { generation, now },
        ),
      );
    }
  };
  // A source becoming available wakes the backups waiting for it.
  const waitingOn = (source: KubeObject, cache: CacheReader) =>
    cache
      .list<Backup>(BACKUP, source.metadata.namespace)
      .filter((backup) => backup.spec?.source.name === source.metadata.name)
      .map((backup) => ({ namespace: backup.metadata.namespace, name: backup.metadata.name }));
  return {
    name: 'backup',
    for: BACKUP,
    watches: [
      { type: DATABASE, map: waitingOn },
      { type: NFS_SHARE, map: waitingOn },
    ],
    reconcile,
  };
}
