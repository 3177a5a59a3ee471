import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { JOBS } from '../../jobs/index.js';
import type { JobDeps } from '../../jobs/job.js';
import { runJob } from '../../jobs/job-runner.js';
import { JobRunInProgressError, runJobByName, UnknownJobError } from '../../jobs/scheduler.js';
import { createLogger } from '../../observability/logger.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

describe('background jobs', () => {
  let test: TestSqliteDatabase;
  let deps: JobDeps;

  beforeEach(async () => {
    test = await openTestSqliteDatabase();
    deps = {
      database: test.database,
      config: loadConfig({}).jobs,
      logger: createLogger('silent'),
      now: () => new Date('2024-05-01T02:00:00.000Z'),
    };
  });

  afterEach(async () => {
    await test.dispose();
  });

  it('lists the three jobs of the spec with their schedules', () => {
    expect(JOBS.map(({ name, schedule }) => ({ name, schedule }))).toEqual([
      { name: 'usage-aggregation', schedule: '0 * * * *' },
      { name: 'meter-sync', schedule: '0 2 * * *' },
      { name: 'garbage-collection', schedule: '0 3 * * *' },
    ]);
  });

  it.each([
    {
      name: 'usage-aggregation',
      summary: { hours: 0, samples: 0, late_samples: 0, window: null },
    },
    {
      name: 'meter-sync',
      summary: { day: '2024-04-30', sent: 0, skipped_existing: 0, too_old: 0, revisions: 0, decreased: 0 },
    },
    {
      name: 'garbage-collection',
      summary: {
        dryRun: true,
        retentionDays: 30,
        cutoff: '2024-04-01T02:00:00.000Z',
        report: expect.any(String),
        candidates: {
          refresh_tokens: 0,
          sessions: 0,
          email_tokens: 0,
          two_factor_challenges: 0,
          oauth_login_states: 0,
          event_stream_tickets: 0,
          usage_samples: 0,
          job_runs: 0,
          vpc_tombstones: 0,
          integration_runs: 0,
          integration_events: 0,
          webhook_delivery_attempts: 0,
        },
        protected: 0,
        deleted: 0,
        skipped: {
          quota_claims: 'no control plane',
          vault_clusters: 'no control plane',
          workload_dirs: 'no control plane',
          backups: 'no control plane',
        },
        checks: { backups_past_retention: 0 },
      },
    },
  ])('runs $name and records what it looked at', async ({ name, summary }) => {
    const job = JOBS.find((candidate) => candidate.name === name)!;
    const run = await runJob(job, deps, 'schedule');

    expect(run).toMatchObject({ outcome: 'succeeded', summary });
    const row = await test.database.kysely.selectFrom('job_runs').selectAll().executeTakeFirstOrThrow();
    expect(JSON.parse(row.summary)).toEqual(summary);
  });

  it('runs a job by name with the manual trigger', async () => {
    const run = await runJobByName('meter-sync', deps);

    expect(run).toMatchObject({ job: 'meter-sync', trigger: 'manual', outcome: 'succeeded' });
    const rows = await test.database.kysely.selectFrom('job_runs').select(['job', 'trigger']).execute();
    expect(rows).toEqual([{ job: 'meter-sync', trigger: 'manual' }]);
  });

  it('rejects an unknown job name, listing the valid ones, and records nothing', async () => {
    const failure = runJobByName('vacuum', deps);

    await expect(failure).rejects.toBeInstanceOf(UnknownJobError);
    await expect(failure).rejects.toThrow(
      'unknown job "vacuum"; valid jobs: usage-aggregation, meter-sync, garbage-collection',
    );
    expect(await test.database.kysely.selectFrom('job_runs').selectAll().execute()).toEqual([]);
  });

  it('refuses to run a job by name while this process is already running it', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = { ...JOBS[0]!, run: () => gate.then(() => ({})) };
    const first = runJob(slow, deps, 'schedule');

    const refused = runJobByName(slow.name, deps, [slow]);
    await expect(refused).rejects.toBeInstanceOf(JobRunInProgressError);
    await expect(refused).rejects.toThrow('job usage-aggregation is already running');
    release();
    expect((await first)?.outcome).toBe('succeeded');
  });
});
