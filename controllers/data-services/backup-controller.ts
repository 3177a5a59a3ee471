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
import type {
  CacheReader,
  ControllerDefinition,
  ReconcileContext,
  Reconciler,
} from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { readCredentials } from './credentials.js';
import type { DataServicesControllerOptions } from './database-controller.js';
import {
  backupSourceHold,
  backupStatus,
  expiresAt,
  finishedBackupStep,
  shareHold,
  type Hold,
} from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, quotaExceededMessage, releaseQuota } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { databaseWorkload, shareWorkload } from './workloads-of.js';
import { restIdOf, workloadIdOf } from '../../crds/ids.js';

const GIGABYTE = 1024 ** 3;
const HOUR_MS = 3_600_000;

/** What a backup run ends in: the artifact, or why there is none (yet). */
type Outcome = { artifact: BackupArtifact; engine: string } | Hold;

/** What one reconcile of a backup works with. */
interface BackupRun {
  context: ReconcileContext;
  options: DataServicesControllerOptions;
  namespace: string;
  backupId: string;
  now: Date;
  startedAt: string;
}

/** Removes the artifact and the quota claim, and lets the object go. */
async function removeBackup(backup: Backup, run: BackupRun): Promise<void> {
  if (!holdsFinalizer(backup)) return;
  if (backup.status?.location) {
    await run.options.runtime.removeBackup({
      location: backup.status.location,
      sizeBytes: backup.status.sizeBytes ?? 0,
    });
  }
  await releaseQuota(run.options.database, run.namespace, run.backupId);
  await removeFinalizer(run.context.store, BACKUP, backup);
}

/** A finished backup: deleted once its retention has passed; a completed one records its usage. */
async function lookAtFinished(backup: Backup, run: BackupRun): ReturnType<Reconciler> {
  const { context, namespace } = run;
  const step = finishedBackupStep(backup.status?.expiresAt, run.now);
  if (step.expired) {
    context.logger.info({ expiresAt: backup.status?.expiresAt }, 'backup expired: deleting it');
    await context.store.delete(BACKUP, namespace, backup.metadata.name);
    return undefined;
  }
  if (backup.status?.phase === 'completed') {
    await recordUsage(
      run.options.database,
      [
        {
          organization: namespace,
          meter: 'backup.storage_gb_hours',
          unit: 'GB-hour',
          resourceType: 'backup',
          resourceId: restIdOf(backup.metadata.name),
          resourceName: backup.status?.sourceDisplayName ?? backup.spec!.source.name,
          quantity: (backup.status?.sizeBytes ?? 0) / GIGABYTE,
        },
      ],
      run.now,
    );
  }
  return { requeueAfterMs: step.requeueAfterMs };
}

/** Writes the backup failed, with the reason; it expires after its retention like a completed one. */
async function failBackup(backup: Backup, message: string, run: BackupRun): Promise<void> {
  const { now } = run;
  await writeStatusIfChanged(
    run.context.store,
    BACKUP,
    backup,
    backupStatus(
      backup.status,
      'failed',
      {
        message,
        completedAt: now.toISOString(),
        expiresAt: expiresAt(now, backup.spec!.retentionDays).toISOString(),
      },
      { generation: backup.metadata.generation, now },
    ),
  );
}

/** Claims the backup's quota; false (and the backup failed) when the organization has no room. */
async function backupQuotaClaimed(backup: Backup, run: BackupRun): Promise<boolean> {
  const claim = await claimQuota(
    run.options.database,
    run.options.quotas,
    { namespace: run.namespace, resourceId: run.backupId, amounts: { backups: 1 } },
    run.now,
  );
  if (claim.outcome !== 'exceeded') return true;
  await failBackup(backup, quotaExceededMessage(claim), run);
  return false;
}

/** Writes that the dump is running; answers the backup at its new revision. */
function markRunning(backup: Backup, displayName: string, engine: string, run: BackupRun): Promise<Backup> {
  return writeStatusIfChanged(
    run.context.store,
    BACKUP,
    backup,
    backupStatus(
      backup.status,
      'running',
      {
        startedAt: run.startedAt,
        sourceDisplayName: displayName,
        sourceEngine: engine,
        message: 'the dump is running',
      },
      { generation: backup.metadata.generation, now: run.now },
    ),
  );
}

/** Dumps the source once it can be; answers the outcome and the backup as last written. */
async function dump(backup: Backup, run: BackupRun): Promise<{ backup: Backup; outcome: Outcome }> {
  const { context, namespace, backupId } = run;
  const { runtime, vault } = run.options;
  const source = backup.spec!.source;
  try {
    if (source.kind === 'NfsShare') {
      const share = context.cache.get<NfsShare>(NFS_SHARE, namespace, source.name);
      const hold = shareHold(share, source.name);
      if (hold) return { backup, outcome: hold };
      backup = await markRunning(backup, share!.spec!.name, 'nfs', run);
      const artifact = await runtime.shares.backup(shareWorkload(share!), backupId);
      return { backup, outcome: { artifact, engine: 'nfs' } };
    }
    const database = context.cache.get<Database>(DATABASE, namespace, source.name);
    const hold = backupSourceHold(database, source.name);
    if (hold) return { backup, outcome: hold };
    const workload = databaseWorkload(database!);
    const credentials = await readCredentials(vault, namespace, workload.id);
    if (!credentials)
      return { backup, outcome: { waitMs: 2_000, message: 'waiting for the database credentials' } };
    backup = await markRunning(backup, database!.spec!.name, database!.spec!.engine, run);
    const artifact = await runtime.databases.backup(workload, credentials.password, backupId);
    return { backup, outcome: { artifact, engine: database!.spec!.engine } };
  } catch (error) {
    if (error instanceof WorkloadError) return { backup, outcome: { failure: error.message } };
    throw error;
  }
}

/** Writes what the run came to: waiting, failed, or completed with the artifact's size and expiry. */
async function recordOutcome(backup: Backup, outcome: Outcome, run: BackupRun): ReturnType<Reconciler> {
  const { context } = run;
  const generation = backup.metadata.generation;
  if ('waitMs' in outcome) {
    await writeStatusIfChanged(
      context.store,
      BACKUP,
      backup,
      backupStatus(backup.status, 'pending', { message: outcome.message }, { generation, now: run.now }),
    );
    return { requeueAfterMs: outcome.waitMs };
  }
  if ('failure' in outcome) {
    context.logger.warn({ err: outcome.failure }, 'backup failed');
    await failBackup(backup, outcome.failure, run);
    return undefined;
  }
  const completedAt = context.clock.now();
  const fields: Partial<BackupStatus> = {
    startedAt: run.startedAt,
    completedAt: completedAt.toISOString(),
    expiresAt: expiresAt(completedAt, backup.spec!.retentionDays).toISOString(),
    location: outcome.artifact.location,
    sizeBytes: outcome.artifact.sizeBytes,
    sourceEngine: outcome.engine,
    message: `a ${outcome.engine} backup of ${outcome.artifact.sizeBytes} bytes`,
  };
  await writeStatusIfChanged(
    context.store,
    BACKUP,
    backup,
    backupStatus(backup.status, 'completed', fields, { generation, now: completedAt }),
  );
  context.logger.info({ sizeBytes: outcome.artifact.sizeBytes }, 'backup completed');
  return { requeueAfterMs: HOUR_MS };
}

/**
 * Reconciles Backups: runs the dump once (again after a restart that interrupted it), records its
 * real size and expiry, deletes the backup when its retention has passed (as Velero's garbage
 * collection does), and removes the artifact when the object goes. A backup outlives its source.
 */
export function backupController(options: DataServicesControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let backup = context.cache.get<Backup>(BACKUP, namespace, name);
    if (!backup?.spec) return;
    const now = context.clock.now();
    const run: BackupRun = {
      context,
      options,
      namespace,
      backupId: workloadIdOf('bkp', namespace, name),
      now,
      startedAt: backup.status?.startedAt ?? now.toISOString(),
    };
    if (backup.metadata.deletionTimestamp) return removeBackup(backup, run);
    const phase = backup.status?.phase;
    if (phase === 'completed' || phase === 'failed') return lookAtFinished(backup, run);
    backup = await addFinalizer(context.store, BACKUP, backup);
    if (!(await backupQuotaClaimed(backup, run))) return;
    const dumped = await dump(backup, run);
    return recordOutcome(dumped.backup, dumped.outcome, run);
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
