import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
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
      const config = loadConfig(testCase.env).jobs;
      const run = await runJob(
        garbageCollection,
        { database: test.database, config, logger: createLogger('silent'), now: () => NOW },
        'schedule',
      );

      expect(run?.outcome).toBe('succeeded');
      expect(run?.summary).toMatchObject({
        dryRun: config.garbageCollection.dryRun,
        retentionDays: config.garbageCollection.retentionDays,
        cutoff: daysAgo(config.garbageCollection.retentionDays),
        candidates: {
          job_runs: testCase.candidates,
          vpc_tombstones: 0,
          integration_runs: 0,
          integration_events: 0,
          webhook_delivery_attempts: 0,
        },
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

  it('removes old finished integration records and keeps events still in flight', async () => {
    const { kysely } = test.database;
    const integrationTest = (id: string, completed: string | null) => ({
      id,
      integration_id: 'i-1',
      namespace: 'org-a',
      status: completed ? ('passed' as const) : ('in-progress' as const),
      result: null,
      errors: '[]',
      started_at: daysAgo(90),
      completed_at: completed,
    });
    await kysely
      .insertInto('integration_tests')
      .values([
        integrationTest('test-old', daysAgo(60)),
        integrationTest('test-recent', daysAgo(1)),
        integrationTest('test-running', null),
      ])
      .execute();
    const event = (id: string, status: 'success' | 'dead' | 'pending' | 'failed', days: number) => ({
      id,
      organization_id: 'org_a',
      integration_id: 'i-1',
      event_type: 'vpc.created',
      subject: 'vpc-1',
      status,
      payload: '{}',
      attempts: 1,
      next_attempt_at: daysAgo(days),
      lease_owner: null,
      lease_expires_at: null,
      created_at: daysAgo(days),
      sent_at: null,
      response_status: null,
      last_error: null,
    });
    await kysely
      .insertInto('integration_events')
      .values([
        event('event-old-delivered', 'success', 60),
        event('event-old-dead', 'dead', 60),
        event('event-old-pending', 'pending', 60),
        event('event-old-retrying', 'failed', 60),
        event('event-recent-delivered', 'success', 1),
      ])
      .execute();
    const attempt = (id: string, days: number) => ({
      id,
      webhook_id: 'webhook-1',
      integration_id: 'i-1',
      event: 'push',
      status: 'success' as const,
      status_code: 200,
      duration_ms: 5,
      timestamp: daysAgo(days),
      delivery_id: id,
    });
    await kysely
      .insertInto('webhook_delivery_attempts')
      .values([attempt('attempt-old', 60), attempt('attempt-recent', 1)])
      .execute();

    const run = await runJob(
      garbageCollection,
      {
        database: test.database,
        config: loadConfig({ CLOUDPLANE_GC_DRY_RUN: 'false' }).jobs,
        logger: createLogger('silent'),
        now: () => NOW,
        signal: new AbortController().signal,
      },
      'schedule',
    );

    expect(run?.summary).toMatchObject({
      candidates: { integration_runs: 1, integration_events: 2, webhook_delivery_attempts: 1 },
    });
    const ids = async (table: 'integration_tests' | 'integration_events' | 'webhook_delivery_attempts') =>
      (await kysely.selectFrom(table).select('id').orderBy('id').execute()).map((row) => row.id);
    expect(await ids('integration_tests')).toEqual(['test-recent', 'test-running']);
    expect(await ids('integration_events')).toEqual([
      'event-old-pending',
      'event-old-retrying',
      'event-recent-delivered',
    ]);
    expect(await ids('webhook_delivery_attempts')).toEqual(['attempt-recent']);
  });

  it('stops before deleting anything when the process is stopping', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const run = await runJob(
      garbageCollection,
      {
        database: test.database,
        config: loadConfig({ CLOUDPLANE_GC_DRY_RUN: 'false' }).jobs,
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
