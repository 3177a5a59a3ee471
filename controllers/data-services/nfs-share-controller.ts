import { NFS_SHARE, type NfsShare } from '../../crds/data-services.js';
import { WorkloadError } from '../../workloads/runtime.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { setCondition } from '../runtime/conditions.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import type { DataServicesControllerOptions } from './database-controller.js';
import { shareStatus } from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, quotaExceededMessage, releaseQuota, shareQuotaAmounts } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { shareWorkload } from './workloads-of.js';
import { restIdOf } from '../../crds/ids.js';

/**
 * Reconciles NfsShares: makes the share exist, measures what it holds against its soft quota
 * (QuotaExceeded), writes hourly usage, and removes it and its files when deleted.
 */
export function nfsShareController(options: DataServicesControllerOptions): ControllerDefinition {
  const { runtime, database: dataPlane } = options;
  const refresh = options.refreshIntervalMs ?? 30_000;
  const reconcile: Reconciler = async ({ namespace = '', name }, { store, cache, clock, logger }) => {
    let share = cache.get<NfsShare>(NFS_SHARE, namespace, name);
    if (!share?.spec) return;
    const workload = shareWorkload(share);
    const now = clock.now();
    const generation = share.metadata.generation;
    if (share.metadata.deletionTimestamp) {
      if (!holdsFinalizer(share)) return;
      if (share.status?.phase !== 'deleting') {
        share = await store.updateStatus<NfsShare>(NFS_SHARE, {
          ...share,
          status: { ...share.status, phase: 'deleting' },
        });
      }
      await runtime.shares.remove(workload);
      await releaseQuota(dataPlane, namespace, workload.id);
      await removeFinalizer(store, NFS_SHARE, share);
      logger.info('share and its files removed');
      return;
    }
    share = await addFinalizer(store, NFS_SHARE, share);
    // A share refused (its quota) claims again at each look, as a database does: the terminal
    // error's own status write wakes another reconcile, which must not make the share regardless.
    if (share.status?.observedGeneration !== generation || share.status?.phase === 'error') {
      const claim = await claimQuota(
        dataPlane,
        options.quotas,
        { namespace, resourceId: workload.id, amounts: shareQuotaAmounts(workload.sizeGb) },
        now,
      );
      if (claim.outcome === 'exceeded')
        throw new TerminalError('QuotaExceeded', quotaExceededMessage(claim), 'error');
    }
    try {
      const observation = await runtime.shares.ensure(workload);
      await writeStatusIfChanged(
        store,
        NFS_SHARE,
        share,
        shareStatus(share.status, share.spec!, observation, { generation, now }),
      );
      if (observation.realization === 'real' && observation.state === 'ready') {
        await recordUsage(
          dataPlane,
          [
            {
              organization: namespace,
              meter: 'nfs.gb_hours',
              unit: 'GB-hour',
              resourceType: 'nfs_share',
              resourceId: restIdOf(name),
              resourceName: share.spec!.name,
              quantity: workload.sizeGb,
            },
          ],
          now,
        );
      }
    } catch (error) {
      if (!(error instanceof WorkloadError)) throw error;
      await writeStatusIfChanged(store, NFS_SHARE, share, {
        ...share.status,
        phase: 'error',
        message: error.message,
        observedGeneration: generation,
        conditions: setCondition(
          share.status?.conditions,
          {
            type: 'Ready',
            status: 'False',
            reason: error.reason,
            message: error.message,
            observedGeneration: generation,
          },
          now,
        ),
      });
    }
    return { requeueAfterMs: refresh };
  };
  return { name: 'nfsshare', for: NFS_SHARE, reconcile };
}
