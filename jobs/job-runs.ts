import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobRun } from './job.js';

export async function recordRunStart(database: DataPlane, run: JobRun): Promise<void> {
  await database.kysely
    .insertInto('job_runs')
    .values({
      id: run.id,
      job: run.job,
      trigger: run.trigger,
      started_at: run.startedAt,
      finished_at: null,
      outcome: run.outcome,
      summary: JSON.stringify(run.summary),
      error: null,
    })
    .execute();
}

/** Writes the outcome; throws when the summary cannot be stored as JSON (a BigInt, a cycle). */
export async function recordRunFinish(database: DataPlane, run: JobRun): Promise<void> {
  const summary = JSON.stringify(run.summary);
  await database.kysely
    .updateTable('job_runs')
    .set({ finished_at: run.finishedAt, outcome: run.outcome, summary, error: run.error })
    .where('id', '=', run.id)
    .execute();
}

/** Runs that started before `cutoff` (ISO-8601), whatever their outcome. */
export async function countRunsStartedBefore(database: DataPlane, cutoff: string): Promise<number> {
  const { count } = await database.kysely
    .selectFrom('job_runs')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('started_at', '<', cutoff)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function deleteRunsStartedBefore(database: DataPlane, cutoff: string): Promise<number> {
  const result = await database.kysely
    .deleteFrom('job_runs')
    .where('started_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
