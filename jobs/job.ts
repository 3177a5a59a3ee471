import type { JobsConfig } from '../config/jobs.js';
import type { ObjectStore } from '../control-plane/types.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobOutcome, JobTrigger } from '../data-plane/schema.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

export type { JobOutcome, JobTrigger };

/** What a job body receives. `logger` already carries the job name and run id. */
export interface JobContext {
  database: DataPlane;
  config: JobsConfig;
  logger: Logger;
  now: () => Date;
  /** Aborted when the process is stopping; a long body checks it between steps. */
  signal: AbortSignal;
  /**
   * The control plane, when the process reaches one. A CronJob without cluster access has none:
   * what needs the objects is skipped, and the run says so.
   */
  store?: ObjectStore | undefined;
  /** Where the local workload runtime keeps its directories, when this process runs it. */
  workloadsDir?: string | undefined;
}

/** A background job: its cron schedule (UTC) and its body, which returns the run's summary. */
export interface JobDefinition {
  name: string;
  schedule: string;
  description: string;
  run(ctx: JobContext): Promise<Record<string, unknown>>;
}

/** What running a job needs from the process. */
export interface JobDeps {
  database: DataPlane;
  config: JobsConfig;
  logger: Logger;
  metrics?: Metrics | undefined;
  now?: (() => Date) | undefined;
  signal?: AbortSignal | undefined;
  store?: ObjectStore | undefined;
  workloadsDir?: string | undefined;
}

/** One run as recorded in `job_runs`. */
export interface JobRun {
  id: string;
  job: string;
  trigger: JobTrigger;
  startedAt: string;
  finishedAt: string | null;
  outcome: JobOutcome;
  summary: Record<string, unknown>;
  error: string | null;
}
