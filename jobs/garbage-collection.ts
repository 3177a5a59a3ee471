import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobDefinition } from './job.js';
import {
  countDeliveryAttemptsBefore,
  countFinishedRunsBefore,
  countSettledEventsBefore,
  purgeDeliveryAttemptsBefore,
  purgeFinishedRunsBefore,
  purgeSettledEventsBefore,
} from '../integrations/retention.js';
import { countTombstonesDeletedBefore, purgeTombstonesDeletedBefore } from '../controllers/vpc/index.js';
import { countRunsStartedBefore, deleteRunsStartedBefore } from './job-runs.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One kind of garbage: records that became collectable before the cutoff. */
export interface GarbageCollector {
  /** The kind's key in the run summary. */
  name: string;
  count(database: DataPlane, cutoff: string): Promise<number>;
  /** Deletes what `count` counts and returns how many went. */
  purge(database: DataPlane, cutoff: string): Promise<number>;
}

const COLLECTORS: readonly GarbageCollector[] = [
  { name: 'job_runs', count: countRunsStartedBefore, purge: deleteRunsStartedBefore },
  { name: 'vpc_tombstones', count: countTombstonesDeletedBefore, purge: purgeTombstonesDeletedBefore },
  { name: 'integration_runs', count: countFinishedRunsBefore, purge: purgeFinishedRunsBefore },
  { name: 'integration_events', count: countSettledEventsBefore, purge: purgeSettledEventsBefore },
  {
    name: 'webhook_delivery_attempts',
    count: countDeliveryAttemptsBefore,
    purge: purgeDeliveryAttemptsBefore,
  },
];

/**
 * Daily removal of records older than the retention period. In dry-run mode (the default) it only
 * counts what it would delete.
 */
export const garbageCollection: JobDefinition = {
  name: 'garbage-collection',
  schedule: '0 3 * * *',
  description: 'Deletes records older than the retention period (counts them only in dry-run mode)',
  async run({ database, config, logger, now, signal }) {
    const { dryRun, retentionDays } = config.garbageCollection;
    const cutoff = new Date(now().getTime() - retentionDays * DAY_MS).toISOString();
    const candidates: Record<string, number> = {};
    let deleted = 0;
    for (const collector of COLLECTORS) {
      signal.throwIfAborted();
      candidates[collector.name] = await collector.count(database, cutoff);
      if (!dryRun) deleted += await collector.purge(database, cutoff);
    }
    logger.info(
      { dryRun, retentionDays, cutoff, candidates, deleted },
      dryRun ? 'garbage collection dry run: nothing deleted' : 'garbage collected',
    );
    return { dryRun, retentionDays, cutoff, candidates, deleted };
  },
};
