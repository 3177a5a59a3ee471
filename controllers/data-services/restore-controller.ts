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
import { WorkloadError } from '../../workloads/runtime.js';
import type { KubeObject } from '../../control-plane/types.js';
import type { CacheReader, ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { setCondition } from '../runtime/conditions.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { readCredentials } from './credentials.js';
import type { DataServicesControllerOptions } from './database-controller.js';
import { databaseWorkload, shareWorkload } from './workloads-of.js';
import { restIdOf } from '../../crds/ids.js';

type Step = { done: true } | { failure: string } | { waitMs: number; message: string };

/**
 * Reconciles Restores: once the backup has completed and the target is available, loads the
 * backup into the target (again after a restart that interrupted it; loading replaces what the
 * target held, so running it twice ends the same).
 */
export function restoreController(options: DataServicesControllerOptions): ControllerDefinition {
  const { runtime, vault } = options;
  const reconcile: Reconciler = async ({ namespace = '', name }, { store, cache, clock, logger }) => {
    let restore = cache.get<Restore>(RESTORE, namespace, name);
    if (!restore?.spec || restore.metadata.deletionTimestamp) return;
    const phase = restore.status?.phase;
    if (phase === 'completed' || phase === 'failed') return;
    const now = clock.now();
    const generation = restore.metadata.generation;
    // Each write answers the object at its new revision, which the next write must start from.
    const write = async (next: RestorePhase, fields: Partial<RestoreStatus> & { message: string }) => {
      const current = restore!;
      restore = await writeStatusIfChanged(store, RESTORE, current, {
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
          now,
        ),
      });
    };
    const startedAt = restore.status?.startedAt ?? now.toISOString();
    const step = await load();
    if ('waitMs' in step) {
      await write('running', { startedAt, message: step.message });
      return { requeueAfterMs: step.waitMs };
    }
    if ('failure' in step) {
      logger.warn({ err: step.failure }, 'restore failed');
      await write('failed', { startedAt, completedAt: clock.now().toISOString(), message: step.failure });
      return;
    }
    logger.info('restore completed');
    await write('completed', {
      startedAt,
      completedAt: clock.now().toISOString(),
      message: 'the backup was restored',
    });
    return;

    async function load(): Promise<Step> {
      const { backup: backupName, target } = restore!.spec!;
      const backup = cache.get<Backup>(BACKUP, namespace, backupName);
      if (!backup?.spec) return { failure: `the backup ${restIdOf(backupName)} does not exist` };
      const backupPhase = backup.status?.phase;
      if (backupPhase === 'failed')
        return { failure: `the backup failed: ${backup.status?.message ?? 'no reason given'}` };
      if (backupPhase !== 'completed' || !backup.status?.location)
        return { waitMs: 2_000, message: 'waiting for the backup to complete' };
      const artifact = { location: backup.status.location, sizeBytes: backup.status.sizeBytes ?? 0 };
      try {
        if (backup.spec.source.kind === 'NfsShare') {
          const share = cache.get<NfsShare>(NFS_SHARE, namespace, target);
          if (!share?.spec || share.metadata.deletionTimestamp)
            return { failure: `the share ${restIdOf(target)} does not exist` };
          if (share.status?.phase !== 'available')
            return { waitMs: 2_000, message: 'waiting for the share to be available' };
          await write('running', { startedAt, message: 'restoring the share' });
          await runtime.shares.restore(artifact, shareWorkload(share));
          return { done: true };
        }
        const database = cache.get<Database>(DATABASE, namespace, target);
        if (!database?.spec || database.metadata.deletionTimestamp)
          return { failure: `the database ${restIdOf(target)} does not exist` };
        const engine = backup.status.sourceEngine;
        if (engine && engine !== database.spec.engine) {
          return { failure: `a ${engine} backup cannot be restored into a ${database.spec.engine} database` };
        }
        if (database.status?.realization === 'recorded')
          return { failure: 'the target database is only recorded: nothing runs to restore into' };
        if (database.status?.phase === 'error')
          return { failure: `the target database is in error: ${database.status.message ?? ''}` };
        if (database.status?.phase !== 'available')
          return { waitMs: 2_000, message: 'waiting for the target database to be available' };
        const workload = databaseWorkload(database);
        const credentials = await readCredentials(vault, namespace, workload.id);
        if (!credentials) return { waitMs: 2_000, message: 'waiting for the target database credentials' };
        await write('running', { startedAt, message: 'loading the dump' });
        await runtime.databases.restore(artifact, workload, credentials.password);
        return { done: true };
      } catch (error) {
        if (error instanceof WorkloadError) return { failure: error.message };
        throw error;
      }
    }
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
