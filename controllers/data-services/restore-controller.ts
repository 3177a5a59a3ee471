import {
  BACKUP,
  DATABASE,
  NFS_SHARE,
  RESTORE,
  type Backup,
  type Database,
  type NfsShare,
  type Restore,
  type RestorePhase,
  type RestoreStatus,
} from '../../crds/data-services.js';
import { WorkloadError, type BackupArtifact } from '../../workloads/runtime.js';
import type { KubeObject } from '../../control-plane/types.js';
import type {
  CacheReader,
  ControllerDefinition,
  ReconcileContext,
  Reconciler,
} from '../runtime/controller.js';
import { setCondition } from '../runtime/conditions.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { readCredentials } from './credentials.js';
import type { DataServicesControllerOptions } from './database-controller.js';
import { restoreBackupHold, restoreShareHold, restoreTargetHold, type Hold } from './engine.js';
import { databaseWorkload, shareWorkload } from './workloads-of.js';

type Loaded = { done: true } | Hold;

/** What one reconcile of a restore works with; `restore` is the object as last written. */
interface RestoreRun {
  context: ReconcileContext;
  options: DataServicesControllerOptions;
  namespace: string;
  restore: Restore;
  now: Date;
  startedAt: string;
}

/** Writes the restore's phase and Ready condition; the run goes on from the object as written. */
async function writePhase(
  run: RestoreRun,
  next: RestorePhase,
  fields: Partial<RestoreStatus> & { message: string },
): Promise<void> {
  const current = run.restore;
  const generation = current.metadata.generation;
  run.restore = await writeStatusIfChanged(run.context.store, RESTORE, current, {
    ...current.status,
    ...fields,
    phase: next,
    observedGeneration: generation,
    conditions: setCondition(
      current.status?.conditions,
      {
        type: 'Ready',
        status: next === 'completed' ? 'True' : 'False',
        reason: { running: 'Running', completed: 'Completed', failed: 'Failed' }[next],
        message: fields.message,
        observedGeneration: generation,
      },
      run.now,
    ),
  });
}

/** Loads a share's archive into the target share once it is available. */
async function loadShare(run: RestoreRun, artifact: BackupArtifact): Promise<Loaded> {
  const target = run.restore.spec!.target;
  const share = run.context.cache.get<NfsShare>(NFS_SHARE, run.namespace, target);
  const hold = restoreShareHold(share, target);
  if (hold) return hold;
  await writePhase(run, 'running', { startedAt: run.startedAt, message: 'restoring the share' });
  await run.options.runtime.shares.restore(artifact, shareWorkload(share!));
  return { done: true };
}

/** Loads a database dump into the target database once it is available with its credentials. */
async function loadDatabase(
  run: RestoreRun,
  artifact: BackupArtifact,
  sourceEngine: string | undefined,
): Promise<Loaded> {
  const target = run.restore.spec!.target;
  const database = run.context.cache.get<Database>(DATABASE, run.namespace, target);
  const hold = restoreTargetHold(database, target, sourceEngine);
  if (hold) return hold;
  const workload = databaseWorkload(database!);
  const credentials = await readCredentials(run.options.vault, run.namespace, workload.id);
  if (!credentials) return { waitMs: 2_000, message: 'waiting for the target database credentials' };
  await writePhase(run, 'running', { startedAt: run.startedAt, message: 'loading the dump' });
  await run.options.runtime.databases.restore(artifact, workload, credentials.password);
  return { done: true };
}

/** Loads the backup into the target once both are ready; a refusal of the runtime fails it. */
async function load(run: RestoreRun): Promise<Loaded> {
  const backupName = run.restore.spec!.backup;
  const backup = run.context.cache.get<Backup>(BACKUP, run.namespace, backupName);
  const hold = restoreBackupHold(backup, backupName);
  if (hold) return hold;
  const status = backup!.status!;
  const artifact = { location: status.location!, sizeBytes: status.sizeBytes ?? 0 };
  try {
    return backup!.spec!.source.kind === 'NfsShare'
      ? await loadShare(run, artifact)
      : await loadDatabase(run, artifact, status.sourceEngine);
  } catch (error) {
    if (error instanceof WorkloadError) return { failure: error.message };
    throw error;
  }
}

/** Writes what loading came to: still running (and when to look again), failed or completed. */
async function recordLoaded(run: RestoreRun, loaded: Loaded): ReturnType<Reconciler> {
  const { context, startedAt } = run;
  if ('waitMs' in loaded) {
    await writePhase(run, 'running', { startedAt, message: loaded.message });
    return { requeueAfterMs: loaded.waitMs };
  }
  const completedAt = context.clock.now().toISOString();
  if ('failure' in loaded) {
    context.logger.warn({ err: loaded.failure }, 'restore failed');
    await writePhase(run, 'failed', { startedAt, completedAt, message: loaded.failure });
    return undefined;
  }
  context.logger.info('restore completed');
  await writePhase(run, 'completed', { startedAt, completedAt, message: 'the backup was restored' });
  return undefined;
}

/**
 * Reconciles Restores: once the backup has completed and the target is available, loads the
 * backup into the target (again after a restart that interrupted it; loading replaces what the
 * target held, so running it twice ends the same).
 */
export function restoreController(options: DataServicesControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    const restore = context.cache.get<Restore>(RESTORE, namespace, name);
    if (!restore?.spec || restore.metadata.deletionTimestamp) return;
    const phase = restore.status?.phase;
    if (phase === 'completed' || phase === 'failed') return;
    const now = context.clock.now();
    const run: RestoreRun = {
      context,
      options,
      namespace,
      restore,
      now,
      startedAt: restore.status?.startedAt ?? now.toISOString(),
    };
    return recordLoaded(run, await load(run));
  };
  // The backup completing and the target becoming available wake the restores waiting for them.
  const restoresOf = (field: 'backup' | 'target') => (object: KubeObject, cache: CacheReader) =>
    cache
      .list<Restore>(RESTORE, object.metadata.namespace)
      .filter((restore) => restore.spec?.[field] === object.metadata.name)
      .map((restore) => ({ namespace: restore.metadata.namespace, name: restore.metadata.name }));
  return {
    name: 'restore',
    for: RESTORE,
    watches: [
      { type: BACKUP, map: restoresOf('backup') },
      { type: DATABASE, map: restoresOf('target') },
      { type: NFS_SHARE, map: restoresOf('target') },
    ],
    reconcile,
  };
}
