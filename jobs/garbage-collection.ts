import { randomUUID } from 'node:crypto';
import { StoreError, type ObjectStore } from '../control-plane/types.js';
import type { Logger } from '../observability/logger.js';
import type { JobDefinition } from './job.js';
import { readControlPlaneView, type ControlPlaneView } from './garbage/control-plane-view.js';
import { EXPIRED_CREDENTIALS, EXPIRED_EVENT_STREAM_TICKETS } from './garbage/expired-rows.js';
import { overdueBackups } from './garbage/overdue-backups.js';
import { ORPHANED_QUOTA_CLAIMS } from './garbage/quota-claims.js';
import { writeGcReport } from './garbage/reports.js';
import { RETAINED_RECORDS } from './garbage/retained-records.js';
import { ageDays, type GarbageCollector, type GcReportItem, type GcScope } from './garbage/types.js';
import { AGGREGATED_USAGE_SAMPLES } from './garbage/usage-samples.js';
import { VAULT_LEFTOVERS } from './garbage/vault-leftovers.js';
import { ORPHANED_WORKLOAD_DIRS } from './garbage/workload-dirs.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Every collector, in the order it deletes: leftovers of gone objects are checked against the
 * control plane read at the start; a session's refresh tokens go before the session.
 */
export const COLLECTORS: readonly GarbageCollector[] = [
  ORPHANED_QUOTA_CLAIMS,
  VAULT_LEFTOVERS,
  ORPHANED_WORKLOAD_DIRS,
  ...EXPIRED_CREDENTIALS,
  EXPIRED_EVENT_STREAM_TICKETS,
  AGGREGATED_USAGE_SAMPLES,
  ...RETAINED_RECORDS,
];

/**
 * The objects leftovers are checked against. A process without a control plane, or whose
 * credentials may not list the kinds (a CronJob's ServiceAccount), runs without: the collectors
 * that need one are skipped.
 */
async function controlPlaneView(
  store: ObjectStore | undefined,
  logger: Logger,
): Promise<ControlPlaneView | undefined> {
  if (store === undefined) return undefined;
  try {
    return await readControlPlaneView(store);
  } catch (error) {
    if (error instanceof StoreError && (error.reason === 'Forbidden' || error.reason === 'Unauthorized')) {
      logger.warn(
        { reason: error.reason },
        'garbage collection may not list objects; skipping what needs them',
      );
      return undefined;
    }
    throw error;
  }
}

function skipReason(collector: GarbageCollector, scope: GcScope): string | undefined {
  if (collector.shape === 'records') return undefined;
  if (collector.needs.includes('control plane') && scope.view === undefined) return 'no control plane';
  if (collector.needs.includes('workloads dir') && scope.workloadsDir === undefined)
    return 'no workloads dir';
  return undefined;
}

/**
 * Daily removal of garbage: records past the retention period, expired credentials, and what
 * deleted objects left behind. In dry-run mode (the default) it deletes nothing; either way it
 * writes a report of what it found. Anything tied to an object labelled
 * `cloudplane.dev/gc-protect=true` is reported as protected and kept.
 */
export const garbageCollection: JobDefinition = {
  name: 'garbage-collection',
  schedule: '0 3 * * *',
  description:
    'Deletes records past retention and leftovers of deleted resources (reports only in dry-run mode)',
  async run({ database, config, logger, now, signal, store, workloadsDir }) {
    const { dryRun, retentionDays } = config.garbageCollection;
    const startedAt = now();
    const cutoff = new Date(startedAt.getTime() - retentionDays * DAY_MS).toISOString();
    const view = await controlPlaneView(store, logger);
    const scope: GcScope = { database, now: startedAt, cutoff, retentionDays, view, workloadsDir };
    const candidates: Record<string, number> = {};
    const skipped: Record<string, string> = {};
    const items: GcReportItem[] = [];
    const done = dryRun ? 'would delete' : 'deleted';
    let deleted = 0;
    let protectedCount = 0;

    for (const collector of COLLECTORS) {
      signal.throwIfAborted();
      const skip = skipReason(collector, scope);
      if (skip !== undefined) {
        skipped[collector.name] = skip;
        continue;
      }
      if (collector.shape === 'records') {
        const count = await collector.count(scope);
        candidates[collector.name] = count;
        if (count === 0) continue;
        if (!dryRun) deleted += await collector.purge(scope);
        items.push({
          collector: collector.name,
          resource: `${count} ${collector.name} rows`,
          age_days: collector.minimumAgeDays(scope),
          reason: collector.reason,
          action: done,
        });
        continue;
      }
      const leftovers = await collector.list(scope);
      candidates[collector.name] = leftovers.filter((leftover) => !leftover.protected).length;
      for (const leftover of leftovers) {
        signal.throwIfAborted();
        if (leftover.protected) protectedCount += 1;
        else if (!dryRun) {
          await collector.remove(scope, leftover);
          deleted += 1;
        }
        items.push({
          collector: collector.name,
          resource: leftover.resource,
          age_days: ageDays(leftover.since, startedAt),
          reason: leftover.reason,
          action: leftover.protected ? 'protected' : done,
        });
      }
    }

    const overdue = view === undefined ? [] : overdueBackups(view, startedAt);
    for (const backup of overdue.filter((entry) => entry.protected)) {
      protectedCount += 1;
      items.push({
        collector: 'backups',
        resource: backup.resource,
        age_days: ageDays(backup.expiredAt, startedAt),
        reason: 'backup past its retention',
        action: 'protected',
      });
    }
    const unprotectedOverdue = overdue.filter((entry) => !entry.protected).map((entry) => entry.resource);
    if (unprotectedOverdue.length > 0)
      logger.warn({ backups: unprotectedOverdue }, 'backups past their retention are still there');
    if (view === undefined) skipped.backups = 'no control plane';

    const reportId = randomUUID();
    await writeGcReport(database, {
      id: reportId,
      startedAt: startedAt.toISOString(),
      finishedAt: now().toISOString(),
      dryRun,
      retentionDays,
      cutoff,
      skipped,
      items,
    });
    const summary = {
      dryRun,
      retentionDays,
      cutoff,
      report: reportId,
      candidates,
      protected: protectedCount,
      deleted,
      skipped,
      checks: { backups_past_retention: unprotectedOverdue.length },
    };
    logger.info(summary, dryRun ? 'garbage collection dry run: nothing deleted' : 'garbage collected');
    return summary;
  },
};
