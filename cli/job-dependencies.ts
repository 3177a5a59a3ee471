import type { Config } from '../config/index.js';
import type { ObjectStore } from '../control-plane/types.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobDeps } from '../jobs/job.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

/** What the process hands the jobs it runs, scheduled (`serve`) or one at a time (`job`). */
export interface JobProcessParts {
  database: DataPlane;
  logger: Logger;
  metrics: Metrics;
  store: ObjectStore | undefined;
}

/**
 * The jobs' dependencies: their slice of the configuration, and the workloads directory only
 * where workloads run on this machine (in a cluster there is none to collect).
 */
export function jobDependencies(config: Config, parts: JobProcessParts): JobDeps {
  return {
    ...parts,
    config: config.jobs,
    workloadsDir: config.workloads.runtime === 'local' ? config.workloads.dir : undefined,
  };
}
