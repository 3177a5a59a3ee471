import { randomUUID } from 'node:crypto';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobDefinition, JobDeps, JobRun, JobTrigger } from './job.js';
import { recordRunFinish, recordRunStart } from './job-runs.js';

/** Jobs with a run in progress in this process, per database: a second run waits for the next firing. */
const inProgress = new WeakMap<DataPlane, Set<string>>();

/**
 * Runs a job once and records it in `job_runs`: a `running` row at start, then its outcome, summary
 * or error. Never throws: a failing body is logged with the job name and run id and recorded as
 * `failed`. Returns undefined, recording nothing, when a run of the same job against the same database
 * is still in progress in this process.
 */
export async function runJob(
  job: JobDefinition,
  deps: JobDeps,
  trigger: JobTrigger,
): Promise<JobRun | undefined> {
  let running = inProgress.get(deps.database);
  if (running === undefined) {
    running = new Set();
    inProgress.set(deps.database, running);
  }
  if (running.has(job.name)) {
    deps.logger.warn({ job: job.name, trigger }, 'job run skipped: the previous run is still in progress');
    return undefined;
  }
  running.add(job.name);
  try {
    return await runRecorded(job, deps, trigger);
  } finally {
    running.delete(job.name);
  }
}

async function runRecorded(job: JobDefinition, deps: JobDeps, trigger: JobTrigger): Promise<JobRun> {
  const now = deps.now ?? (() => new Date());
  const id = randomUUID();
  const logger = deps.logger.child({ job: job.name, runId: id, trigger });
  const started: JobRun = {
    id,
    job: job.name,
    trigger,
    startedAt: now().toISOString(),
    finishedAt: null,
    outcome: 'running',
    summary: {},
    error: null,
  };
  let finished: JobRun;
  try {
    await recordRunStart(deps.database, started);
    logger.info('job run started');
    const summary = await job.run({
      database: deps.database,
      config: deps.config,
      logger,
      now,
      signal: deps.signal ?? new AbortController().signal,
      store: deps.store,
      workloadsDir: deps.workloadsDir,
    });
    finished = { ...started, finishedAt: now().toISOString(), outcome: 'succeeded', summary };
    await recordRunFinish(deps.database, finished);
    logger.info({ summary }, 'job run succeeded');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    finished = { ...started, finishedAt: now().toISOString(), outcome: 'failed', error: message };
    logger.error({ err: error }, 'job run failed');
    await recordRunFinish(deps.database, finished).catch((recordError: unknown) =>
      logger.error({ err: recordError }, 'job run outcome could not be recorded'),
    );
  }
  deps.metrics?.jobRunsTotal.inc({ job: job.name, outcome: finished.outcome });
  return finished;
}
