/** Records kept for the retention period after they settled: job runs, VPC tombstones, integration records. */
import type { DataPlane } from '../../data-plane/data-plane.js';
import {
  countDeliveryAttemptsBefore,
  countFinishedRunsBefore,
  countSettledEventsBefore,
  purgeDeliveryAttemptsBefore,
  purgeFinishedRunsBefore,
  purgeSettledEventsBefore,
} from '../../integrations/retention.js';
import { countTombstonesDeletedBefore, purgeTombstonesDeletedBefore } from '../../controllers/vpc/index.js';
import { countRunsStartedBefore, deleteRunsStartedBefore } from '../job-runs.js';
import type { RecordCollector } from './types.js';

type ByCutoff = (database: DataPlane, cutoff: string) => Promise<number>;

function retained(name: string, reason: string, count: ByCutoff, purge: ByCutoff): RecordCollector {
  return {
    shape: 'records',
    name,
    reason,
    minimumAgeDays: ({ retentionDays }) => retentionDays,
    count: ({ database, cutoff }) => count(database, cutoff),
    purge: ({ database, cutoff }) => purge(database, cutoff),
  };
}

export const RETAINED_RECORDS: readonly RecordCollector[] = [
  retained('job_runs', 'job run past retention', countRunsStartedBefore, deleteRunsStartedBefore),
  retained(
    'vpc_tombstones',
    'deleted VPC past retention',
    countTombstonesDeletedBefore,
    purgeTombstonesDeletedBefore,
  ),
  retained(
    'integration_runs',
    'finished integration test past retention',
    countFinishedRunsBefore,
    purgeFinishedRunsBefore,
  ),
  retained(
    'integration_events',
    'settled integration event past retention',
    countSettledEventsBefore,
    purgeSettledEventsBefore,
  ),
  retained(
    'webhook_delivery_attempts',
    'webhook delivery attempt past retention',
    countDeliveryAttemptsBefore,
    purgeDeliveryAttemptsBefore,
  ),
];
