import type { Cron } from 'croner';
import { utcSchedule } from '../controllers/runtime/cron.js';
import { systemClock, type Clock, type TimerHandle } from '../observability/clock.js';
import { JOBS } from './index.js';
import type { JobDefinition, JobDeps, JobRun } from './job.js';
import { runJob } from './job-runner.js';

/** Node's timers cannot wait longer than this; longer waits re-arm on waking. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface SchedulerOptions {
  jobs: readonly JobDefinition[];
  deps: JobDeps;
  /** Time and timers; the jobs get its `now` too. Defaults to the system clock. */
  clock?: Clock;
}

export interface Scheduler {
  /** Arms every job for its next firing. Calling it again while started does nothing. */
  start(): void;
  /** Cancels every pending firing, aborts the signal of runs in progress and waits for them to finish. */
  stop(): Promise<void>;
  /** Resolves once every run started so far has finished. */
  settled(): Promise<void>;
}

/** Thrown by `runJobByName` for a name no job has. */
export class UnknownJobError extends Error {
  constructor(
    readonly job: string,
    readonly validNames: readonly string[],
  ) {
    super(`unknown job ${JSON.stringify(job)}; valid jobs: ${validNames.join(', ')}`);
    this.name = 'UnknownJobError';
  }
}

/** Thrown by `runJobByName` when a run of the job is already in progress in this process. */
export class JobRunInProgressError extends Error {
  constructor(readonly job: string) {
    super(`job ${job} is already running; try again when the current run has finished`);
    this.name = 'JobRunInProgressError';
  }
}

function parseSchedule(job: JobDefinition): Cron {
  try {
    return utcSchedule(job.schedule);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`job ${job.name} has an invalid schedule ${JSON.stringify(job.schedule)}: ${reason}`);
  }
}

/**
 * Fires each job at the times its cron schedule names (UTC), through `runJob` with the `schedule`
 * trigger. A run still going at its job's next firing makes that firing a logged skip. After a pause
 * longer than an interval (a suspended machine) a job runs once, not once per missed firing.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { jobs, deps } = options;
  const clock = options.clock ?? systemClock;
  const now = (): Date => clock.now();
  const names = new Set<string>();
  const schedules = jobs.map((job) => {
    if (names.has(job.name)) throw new Error(`job ${job.name} is listed twice`);
    names.add(job.name);
    return { job, cron: parseSchedule(job) };
  });
  const pending = new Map<string, TimerHandle>();
  const inFlight = new Set<Promise<unknown>>();
  let abort: AbortController | undefined;

  function arm(job: JobDefinition, cron: Cron, at: Date): void {
    const delay = Math.min(Math.max(at.getTime() - now().getTime(), 0), MAX_TIMER_DELAY_MS);
    pending.set(
      job.name,
      clock.setTimeout(() => wake(job, cron, at), delay),
    );
  }

  function armNext(job: JobDefinition, cron: Cron, after: Date): Date | null {
    const next = cron.nextRun(after);
    if (next === null) {
      pending.delete(job.name);
      deps.logger.info({ job: job.name }, 'job has no further scheduled runs');
      return null;
    }
    arm(job, cron, next);
    return next;
  }

  function wake(job: JobDefinition, cron: Cron, at: Date): void {
    const current = now();
    // Timers may wake early, or after the longest wait a timer allows: only fire once the time has come.
    if (current < at) {
      arm(job, cron, at);
      return;
    }
    armNext(job, cron, current > at ? current : at);
    const run: Promise<JobRun | undefined> = runJob(
      job,
      { ...deps, now, signal: abort?.signal },
      'schedule',
    ).finally(() => inFlight.delete(run));
    inFlight.add(run);
  }

  async function settled(): Promise<void> {
    await Promise.allSettled([...inFlight]);
  }

  return {
    start() {
      if (abort !== undefined) return;
      abort = new AbortController();
      for (const { job, cron } of schedules) {
        const next = armNext(job, cron, now());
        deps.logger.info(
          { job: job.name, schedule: job.schedule, nextRun: next?.toISOString() },
          'job scheduled',
        );
      }
    },
    async stop() {
      for (const handle of pending.values()) clock.clearTimeout(handle);
      pending.clear();
      abort?.abort();
      abort = undefined;
      await settled();
    },
    settled,
  };
}

/**
 * Runs one job now with the `manual` trigger, as `cloudplane job <name>` does. Throws
 * `UnknownJobError` listing the valid names when no job has that name, and `JobRunInProgressError`
 * when this process is already running that job.
 */
export async function runJobByName(
  name: string,
  deps: JobDeps,
  jobs: readonly JobDefinition[] = JOBS,
): Promise<JobRun> {
  const job = jobs.find((candidate) => candidate.name === name);
  if (job === undefined)
    throw new UnknownJobError(
      name,
      jobs.map((candidate) => candidate.name),
    );
  const run = await runJob(job, deps, 'manual');
  if (run === undefined) throw new JobRunInProgressError(name);
  return run;
}
