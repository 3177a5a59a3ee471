import { NFS_SHARE, type NfsShare } from '../../crds/data-services.js';
import { WorkloadError, type ShareWorkload } from '../../workloads/runtime.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { workloadRun, type DataServicesControllerOptions, type WorkloadRun } from './database-controller.js';
import { billable, claimsQuota, shareErrorStatus, shareStatus } from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, quotaExceededMessage, releaseQuota, shareQuotaAmounts } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { shareWorkload } from './workloads-of.js';
import { restIdOf } from '../../crds/ids.js';

type ShareRun = WorkloadRun<ShareWorkload>;

/** Marks the share deleting, removes it and its files, releases its quota and lets it go. */
async function removeShare(share: NfsShare, run: ShareRun): Promise<void> {
  const { context, options, namespace, workload } = run;
  if (!holdsFinalizer(share)) return;
  if (share.status?.phase !== 'deleting') {
    share = await context.store.updateStatus<NfsShare>(NFS_SHARE, {
      ...share,
      status: { ...share.status, phase: 'deleting' },
    });
  }
  await options.runtime.shares.remove(workload);
  await releaseQuota(options.database, namespace, workload.id);
  await removeFinalizer(context.store, NFS_SHARE, share);
  context.logger.info('share and its files removed');
}

/**
 * Claims the share's quota when its spec is new or it was refused. A share refused claims again
 * at each look, as a database does: the terminal error's own status write wakes another
 * reconcile, which must not make the share regardless.
 */
async function claimShareQuota(share: NfsShare, run: ShareRun): Promise<void> {
  const { options, namespace, workload } = run;
  if (!claimsQuota(share.status, share.metadata.generation)) return;
  const claim = await claimQuota(
    options.database,
    options.quotas,
    { namespace, resourceId: workload.id, amounts: shareQuotaAmounts(workload.sizeGb) },
    run.now,
  );
  if (claim.outcome === 'exceeded')
    throw new TerminalError('QuotaExceeded', quotaExceededMessage(claim), 'error');
}

/** The hour's usage sample of a share that is served: its size. */
async function recordShareUsage(share: NfsShare, run: ShareRun): Promise<void> {
  await recordUsage(
    run.options.database,
    [
      {
        organization: run.namespace,
        meter: 'nfs.gb_hours',
        unit: 'GB-hour',
        resourceType: 'nfs_share',
        resourceId: restIdOf(share.metadata.name),
        resourceName: share.spec!.name,
        quantity: run.workload.sizeGb,
      },
    ],
    run.now,
  );
}

/** Makes the share exist and writes what the runtime answered, or its refusal, into status. */
async function ensureShare(share: NfsShare, run: ShareRun): Promise<void> {
  const { context, options, workload, now } = run;
  const generation = share.metadata.generation;
  try {
    const observation = await options.runtime.shares.ensure(workload);
    await writeStatusIfChanged(
      context.store,
      NFS_SHARE,
      share,
      shareStatus(share.status, share.spec!, observation, { generation, now }),
    );
    if (billable(observation)) await recordShareUsage(share, run);
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    await writeStatusIfChanged(
      context.store,
      NFS_SHARE,
      share,
      shareErrorStatus(share.status, error, { generation, now }),
    );
  }
}

/**
 * Reconciles NfsShares: makes the share exist, measures what it holds against its soft quota
 * (QuotaExceeded), writes hourly usage, and removes it and its files when deleted.
 */
export function nfsShareController(options: DataServicesControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let share = context.cache.get<NfsShare>(NFS_SHARE, namespace, name);
    if (!share?.spec) return;
    const run = workloadRun(context, options, namespace, shareWorkload(share));
    if (share.metadata.deletionTimestamp) return removeShare(share, run);
    share = await addFinalizer(context.store, NFS_SHARE, share);
    await claimShareQuota(share, run);
    await ensureShare(share, run);
    return { requeueAfterMs: run.refreshMs };
  };
  return { name: 'nfsshare', for: NFS_SHARE, reconcile };
}
