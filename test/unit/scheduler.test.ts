import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { JOBS } from '../../jobs/index.js';
import type { JobDefinition } from '../../jobs/job.js';
import type { Clock } from '../../observability/clock.js';
import { createScheduler, type Scheduler } from '../../jobs/scheduler.js';
import { createLogger } from '../../observability/logger.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';
import { FakeClock } from '../fixtures/fake-clock.js';

/** Moves the fake clock forward to an absolute time, firing what falls due on the way. */
async function advanceTo(clock: FakeClock, iso: string): Promise<void> {
  await clock.advance(Date.parse(iso) - clock.now().getTime());
}

const config = loadConfig({}).jobs;
const logger = createLogger('silent');

async function runs(database: DataPlane): Promise<{ job: string; started_at: string; outcome: string }[]> {
  return database.kysely
    .selectFrom('job_runs')
    .select(['job', 'started_at', 'outcome'])
    .orderBy('started_at')
    .orderBy('job')
    .execute();
}

describe('scheduler', () => {
  let test: TestSqliteDatabase;
  let scheduler: Scheduler | undefined;

  beforeEach(async () => {
    test = await openTestSqliteDatabase();
  });

  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
    await test.dispose();
  });

  function startScheduler(clock: Clock, jobs: readonly JobDefinition[] = JOBS): Scheduler {
    scheduler = createScheduler({
      jobs,
      deps: { database: test.database, config, logger },
      clock,
    });
    scheduler.start();
    return scheduler;
  }

  it('runs usage-aggregation exactly once when the clock passes the top of the hour', async () => {
    const clock = new FakeClock('2024-05-01T00:59:30.000Z');
    const started = startScheduler(clock);

    await advanceTo(clock, '2024-05-01T00:59:59.999Z');
    await started.settled();
    expect(await runs(test.database)).toEqual([]);

    await advanceTo(clock, '2024-05-01T01:00:00.000Z');
    await started.settled();
    const rows = await test.database.kysely.selectFrom('job_runs').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      job: 'usage-aggregation',
      trigger: 'schedule',
      started_at: '2024-05-01T01:00:00.000Z',
      finished_at: '2024-05-01T01:00:00.000Z',
      outcome: 'succeeded',
    });
  });

  it('fires each job on its schedule through the night and nothing in between', async () => {
    const clock = new FakeClock('2024-05-01T00:59:30.000Z');
    const started = startScheduler(clock);
    const checkpoints = [
      { at: '2024-05-01T00:59:59.999Z', fired: [] },
      { at: '2024-05-01T01:00:00.000Z', fired: ['usage-aggregation'] },
      { at: '2024-05-01T01:59:59.999Z', fired: [] },
      { at: '2024-05-01T02:00:00.000Z', fired: ['meter-sync', 'usage-aggregation'] },
      { at: '2024-05-01T02:59:59.999Z', fired: [] },
      { at: '2024-05-01T03:00:00.000Z', fired: ['garbage-collection', 'usage-aggregation'] },
      { at: '2024-05-01T03:59:59.999Z', fired: [] },
    ];

    let previous = clock.now().toISOString();
    for (const { at, fired } of checkpoints) {
      await advanceTo(clock, at);
      await started.settled();
      const since = (await runs(test.database)).filter((run) => run.started_at > previous);
      expect(since, `runs after ${previous} up to ${at}`).toEqual(
        fired.map((job) => ({ job, started_at: at, outcome: 'succeeded' })),
      );
      previous = at;
    }
  });

  it('cancels every pending firing on stop', async () => {
    const clock = new FakeClock('2024-05-01T00:59:30.000Z');
    const started = startScheduler(clock);
    expect(clock.pendingDelays()).toHaveLength(JOBS.length);

    await started.stop();
    expect(clock.pendingDelays()).toEqual([]);
    await advanceTo(clock, '2024-05-02T04:00:00.000Z');
    await started.settled();
    expect(await runs(test.database)).toEqual([]);
  });

  it('aborts the run in progress on stop and waits for it to be recorded', async () => {
    const clock = new FakeClock('2024-05-01T00:59:30.000Z');
    let bodyStarted: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (bodyStarted = resolve));
    const waitsForStop: JobDefinition = {
      name: 'waits-for-stop',
      schedule: '0 * * * *',
      description: 'finishes only when aborted',
      run: ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(new Error('stopped by shutdown')));
          bodyStarted();
        }),
    };
    const started = startScheduler(clock, [waitsForStop]);
    await advanceTo(clock, '2024-05-01T01:00:00.000Z');
    await running;

    await started.stop();
    const rows = await test.database.kysely.selectFrom('job_runs').select(['outcome', 'error']).execute();
    expect(rows).toEqual([{ outcome: 'failed', error: 'stopped by shutdown' }]);
  });

  it('skips a firing while the previous run of the same job is still going', async () => {
    const clock = new FakeClock('2024-05-01T00:00:30.000Z');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: JobDefinition = {
      name: 'slow',
      schedule: '* * * * *',
      description: 'outlasts its interval',
      run: async () => {
        await gate;
        return {};
      },
    };
    const started = startScheduler(clock, [slow]);

    await advanceTo(clock, '2024-05-01T00:01:00.000Z');
    await advanceTo(clock, '2024-05-01T00:02:00.000Z');
    release();
    await started.settled();
    expect(await runs(test.database)).toEqual([
      { job: 'slow', started_at: '2024-05-01T00:01:00.000Z', outcome: 'succeeded' },
    ]);

    await advanceTo(clock, '2024-05-01T00:03:00.000Z');
    await started.settled();
    expect((await runs(test.database)).map((run) => run.started_at)).toEqual([
      '2024-05-01T00:01:00.000Z',
      '2024-05-01T00:03:00.000Z',
    ]);
  });

  it('runs a job once, not once per missed firing, after the machine was suspended', async () => {
    const timers = new FakeClock('2024-05-01T00:59:30.000Z');
    let suspendedMs = 0;
    // Timers keep their own time while the wall clock jumps, as across a suspend and resume.
    const clock: Clock = {
      now: () => new Date(timers.now().getTime() + suspendedMs),
      setTimeout: (callback, delayMs) => timers.setTimeout(callback, delayMs),
      clearTimeout: (handle) => timers.clearTimeout(handle),
    };
    const started = startScheduler(
      clock,
      JOBS.filter((job) => job.name === 'usage-aggregation'),
    );

    suspendedMs = Date.parse('2024-05-01T05:30:00.000Z') - Date.parse('2024-05-01T01:00:00.000Z');
    await timers.advance(30_000);
    await started.settled();
    expect(await runs(test.database)).toEqual([
      { job: 'usage-aggregation', started_at: '2024-05-01T05:30:00.000Z', outcome: 'succeeded' },
    ]);
    expect(timers.pendingDelays()).toEqual([30 * 60 * 1000]);
  });

  it.each([
    {
      problem: 'an invalid schedule',
      jobs: [{ ...JOBS[0]!, schedule: 'every hour' }],
      message: /usage-aggregation.*"every hour"/,
    },
    {
      problem: 'a job listed twice',
      jobs: [JOBS[0]!, JOBS[0]!],
      message: /usage-aggregation is listed twice/,
    },
  ])('refuses to be created with $problem, naming the job', ({ jobs, message }) => {
    expect(() => createScheduler({ jobs, deps: { database: test.database, config, logger } })).toThrow(
      message,
    );
  });
});
