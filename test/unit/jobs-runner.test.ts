import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import type { JobDefinition, JobDeps } from '../../jobs/job.js';
import { runJob } from '../../jobs/job-runner.js';
import { createMetrics, type Metrics } from '../../observability/metrics.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

function job(name: string, run: JobDefinition['run']): JobDefinition {
  return { name, schedule: '0 * * * *', description: name, run };
}

async function runCount(metrics: Metrics, jobName: string, outcome: string): Promise<number> {
  const { values } = await metrics.jobRunsTotal.get();
  return values.find((value) => value.labels.job === jobName && value.labels.outcome === outcome)?.value ?? 0;
}

describe('runJob', () => {
  let test: TestSqliteDatabase;
  let deps: JobDeps;
  let records: Record<string, unknown>[];
  let clock: Date;

  beforeEach(async () => {
    test = await openTestSqliteDatabase();
    const captured = capturedLogger();
    records = captured.lines;
    clock = new Date('2024-05-01T01:00:00.000Z');
    deps = {
      database: test.database,
      config: loadConfig({}).jobs,
      logger: captured.logger,
      metrics: createMetrics({ processMetrics: false }),
      now: () => clock,
    };
  });

  afterEach(async () => {
    await test.dispose();
  });

  it('records a running row at start, then the outcome, finish time and summary', async () => {
    const seenWhileRunning: unknown[] = [];
    const summary = { looked_at: { 'usage-events': 12 }, note: 'Grüße 🚀' };
    const run = await runJob(
      job('counts', async ({ database }) => {
        seenWhileRunning.push(
          ...(await database.kysely.selectFrom('job_runs').select(['outcome']).execute()),
        );
        clock = new Date('2024-05-01T01:00:05.000Z');
        return summary;
      }),
      deps,
      'manual',
    );

    expect(seenWhileRunning).toEqual([{ outcome: 'running' }]);
    expect(run).toMatchObject({
      job: 'counts',
      trigger: 'manual',
      startedAt: '2024-05-01T01:00:00.000Z',
      finishedAt: '2024-05-01T01:00:05.000Z',
      outcome: 'succeeded',
      summary,
      error: null,
    });
    const row = await test.database.kysely.selectFrom('job_runs').selectAll().executeTakeFirstOrThrow();
    expect({ ...row, summary: JSON.parse(row.summary) }).toEqual({
      id: run!.id,
      job: 'counts',
      trigger: 'manual',
      started_at: '2024-05-01T01:00:00.000Z',
      finished_at: '2024-05-01T01:00:05.000Z',
      outcome: 'succeeded',
      summary,
      error: null,
    });
    expect(await runCount(deps.metrics!, 'counts', 'succeeded')).toBe(1);
  });

  it.each([
    {
      failure: 'the body throws an Error',
      run: async () => {
        throw new Error('payment provider unreachable');
      },
      error: 'payment provider unreachable',
    },
    {
      failure: 'the body throws a string',
      run: async () => {
        throw 'plain string failure';
      },
      error: 'plain string failure',
    },
    {
      failure: 'the summary cannot be stored as JSON',
      run: async () => ({ total: 10n }),
      error: 'Do not know how to serialize a BigInt',
    },
  ])(
    'records a failed run, logs it with job and run id, and does not throw when $failure',
    async (testCase) => {
      const run = await runJob(job('breaks', testCase.run), deps, 'schedule');

      expect(run).toMatchObject({
        outcome: 'failed',
        error: testCase.error,
        finishedAt: '2024-05-01T01:00:00.000Z',
      });
      const rows = await test.database.kysely.selectFrom('job_runs').selectAll().execute();
      expect(rows).toEqual([
        {
          id: run!.id,
          job: 'breaks',
          trigger: 'schedule',
          started_at: '2024-05-01T01:00:00.000Z',
          finished_at: '2024-05-01T01:00:00.000Z',
          outcome: 'failed',
          summary: '{}',
          error: testCase.error,
        },
      ]);
      expect(records).toContainEqual(
        expect.objectContaining({ level: 50, job: 'breaks', runId: run!.id, msg: 'job run failed' }),
      );
      expect(await runCount(deps.metrics!, 'breaks', 'failed')).toBe(1);
    },
  );

  it('skips a second run of a job whose run is still in progress, recording nothing, but runs other jobs', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = job('slow', async () => {
      await gate;
      return {};
    });

    const first = runJob(slow, deps, 'schedule');
    const second = await runJob(slow, deps, 'manual');
    const other = await runJob(
      job('other', async () => ({})),
      deps,
      'manual',
    );
    expect(second).toBeUndefined();
    expect(other?.outcome).toBe('succeeded');
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 40,
        job: 'slow',
        msg: 'job run skipped: the previous run is still in progress',
      }),
    );

    release();
    expect((await first)?.outcome).toBe('succeeded');
    const rows = await test.database.kysely
      .selectFrom('job_runs')
      .select(['job', 'trigger'])
      .orderBy('job')
      .execute();
    expect(rows).toEqual([
      { job: 'other', trigger: 'manual' },
      { job: 'slow', trigger: 'schedule' },
    ]);

    expect((await runJob(slow, deps, 'manual'))?.outcome).toBe('succeeded');
  });

  it('records the run as failed and still does not throw when the database is gone', async () => {
    await test.database.close();
    const run = await runJob(
      job('orphan', async () => ({})),
      deps,
      'manual',
    );
    expect(run).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/./) });
    expect(records).toContainEqual(expect.objectContaining({ msg: 'job run outcome could not be recorded' }));
    expect(await runCount(deps.metrics!, 'orphan', 'failed')).toBe(1);
  });
});
