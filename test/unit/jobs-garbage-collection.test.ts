import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../cli/config.js';
import { garbageCollection } from '../../jobs/garbage-collection.js';
import { runJob } from '../../jobs/job-runner.js';
import { createLogger } from '../../observability/logger.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

const NOW = new Date('2024-05-01T03:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

function daysAgo(days: number): string {
  return new Date(NOW.getTime() - days * DAY_MS).toISOString();
}

/** Runs of earlier days; ids name their age so assertions read plainly. */
const SEEDED_RUNS = [90, 61, 45, 31, 30, 29, 1].map((days) => ({
  id: `run-${days}d`,
  job: 'usage-aggregation',
  trigger: 'schedule' as const,
  started_at: daysAgo(days),
  finished_at: daysAgo(days),
  outcome: 'succeeded' as const,
  summary: '{}',
  error: null,
}));

describe('garbage-collection job', () => {
  let test: TestSqliteDatabase;

  beforeEach(async () => {
    test = await openTestSqliteDatabase();
    await test.database.kysely.insertInto('job_runs').values(SEEDED_RUNS).execute();
  });

  afterEach(async () => {
    await test.dispose();
  });

  async function remainingSeededRuns(): Promise<string[]> {
    const rows = await test.database.kysely
      .selectFrom('job_runs')
      .select('id')
      .where('job', '=', 'usage-aggregation')
      .orderBy('started_at')
      .execute();
    return rows.map((row) => row.id);
  }

  it.each([
    {
      mode: 'dry-run with 30 days retention',
      env: {},
      candidates: 4,
      deleted: 0,
      remaining: ['run-90d', 'run-61d', 'run-45d', 'run-31d', 'run-30d', 'run-29d', 'run-1d'],
    },
    {
      mode: 'deleting with 30 days retention',
      env: { CLOUDPLANE_GC_DRY_RUN: 'false' },
      candidates: 4,
      deleted: 4,
      remaining: ['run-30d', 'run-29d', 'run-1d'],
    },
    {
      mode: 'deleting with 60 days retention',
      env: { CLOUDPLANE_GC_DRY_RUN: 'false', CLOUDPLANE_GC_RETENTION_DAYS: '60' },
      candidates: 2,
      deleted: 2,
      remaining: ['run-45d', 'run-31d', 'run-30d', 'run-29d', 'run-1d'],
    },
  ])(
    'counts job runs older than the retention period and deletes them unless dry-run: $mode',
    async (testCase) => {
      const config = loadConfig(testCase.env);
      const run = await runJob(
        garbageCollection,
        { database: test.database, config, logger: createLogger('silent'), now: () => NOW },
        'schedule',
      );

      expect(run?.outcome).toBe('succeeded');
      expect(run?.summary).toEqual({
        dryRun: config.garbageCollection.dryRun,
        retentionDays: config.garbageCollection.retentionDays,
        cutoff: daysAgo(config.garbageCollection.retentionDays),
        candidates: { job_runs: testCase.candidates, vpc_tombstones: 0 },
        deleted: testCase.deleted,
      });
      expect(await remainingSeededRuns()).toEqual(testCase.remaining);
      const own = await test.database.kysely
        .selectFrom('job_runs')
        .select('outcome')
        .where('id', '=', run!.id)
        .execute();
      expect(own).toEqual([{ outcome: 'succeeded' }]);
    },
  );

  it('stops before deleting anything when the process is stopping', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const run = await runJob(
      garbageCollection,
      {
        database: test.database,
        config: loadConfig({ CLOUDPLANE_GC_DRY_RUN: 'false' }),
        logger: createLogger('silent'),
        now: () => NOW,
        signal: aborted.signal,
      },
      'schedule',
    );

    expect(run?.outcome).toBe('failed');
    expect(await remainingSeededRuns()).toHaveLength(SEEDED_RUNS.length);
  });
});
