import { describe, expect, it } from 'vitest';
import {
  backupSourceHold,
  billable,
  backupStatus,
  claimsQuota,
  cronProblem,
  databaseSpecProblem,
  finishedBackupStep,
  restoreBackupHold,
  restoreShareHold,
  restoreTargetHold,
  rotationDue,
  scheduledBackupName,
  scheduledRequeueMs,
  shareErrorStatus,
  shareHold,
  type Hold,
  databaseErrorStatus,
  databaseStatus,
  engineProblem,
  expiresAt,
  nextRun,
  scheduleStep,
  shareStatus,
  shrinkProblem,
  sizeFieldProblem,
  versionProblem,
} from '../../controllers/data-services/engine.js';
import type { DatabaseObservation, ShareObservation } from '../../workloads/runtime.js';
import type {
  Backup,
  BackupStatus,
  Database,
  DatabaseSpec,
  DatabaseStatus,
  NfsShare,
} from '../../crds/data-services.js';
import { FakeClock } from '../fixtures/fake-clock.js';

const NOW = new Date('2026-03-01T09:00:00Z');
const GENERATION = 3;

function observation(overrides: Partial<DatabaseObservation> = {}): DatabaseObservation {
  return {
    realization: 'real',
    state: 'ready',
    version: '15.18',
    storageUsedBytes: 5 * 1024 * 1024 + 1,
    access: {
      host: '127.0.0.1',
      port: 5433,
      username: 'db_0a',
      database: 'db_0a',
      connectionString: 'postgresql://db_0a:secret@127.0.0.1:5433/db_0a',
    },
    ...overrides,
  };
}

describe('validation', () => {
  it.each([
    ['postgresql', undefined],
    ['redis', undefined],
    ['mariadb', undefined],
    ['oracle', 'engine must be one of postgresql, mysql (or mariadb), redis, mongodb'],
  ])('engine %s', (engine, message) => {
    expect(engineProblem(engine)?.message).toBe(message);
  });

  it.each([
    ['postgresql', undefined, undefined],
    ['postgresql', '14', undefined],
    ['postgresql', '15', undefined],
    ['postgresql', '16', undefined],
    ['postgresql', '17', undefined],
    ['postgresql', '9.6', 'postgresql version must be one of 14, 15, 16, 17'],
    ['postgresql', '18', 'postgresql version must be one of 14, 15, 16, 17'],
    ['mysql', '10.11', undefined],
    ['mysql', '8.0', 'mysql version must be one of 10.11'],
    ['redis', '6', 'redis version must be one of 7'],
  ] as const)('%s version %s', (engine, version, message) => {
    expect(versionProblem(engine, version)?.message).toBe(message);
  });

  it.each([
    [{ storageGb: 10 }, { storageGb: 20 }, undefined],
    [{ storageGb: 10 }, { storageGb: 10 }, undefined],
    [{ storageGb: 10 }, { storageGb: 5 }, 'storage_gb can only grow: it is 10, asked 5'],
    [{ memoryMb: 256 }, { memoryMb: 128 }, 'memory_mb can only grow: it is 256, asked 128'],
  ])('from %j to %j', (current, wanted, message) => {
    expect(shrinkProblem(current, wanted)?.message).toBe(message);
  });

  it.each([
    ['redis', { memory_mb: 64 }, undefined],
    ['redis', { storage_gb: 1 }, 'storage_gb'],
    ['mysql', { memory_mb: 64 }, 'memory_mb'],
    ['mysql', { storage_gb: 1 }, undefined],
  ] as const)('%s sized by %j', (engine, body, field) => {
    expect(sizeFieldProblem(engine, body)?.field).toBe(field);
  });

  it.each([
    ['0 3 * * *', undefined],
    ['*/15 * * * 1-5', undefined],
    ['0 3 * *', 'cron must have 5 fields (minute hour day month weekday), got 4'],
    ['0 0 3 * * *', 'cron must have 5 fields (minute hour day month weekday), got 6'],
  ])('cron %s', (cron, message) => {
    expect(cronProblem(cron)?.message).toBe(message);
  });

  it('refuses a field out of range, naming the expression', () => {
    expect(cronProblem('61 * * * *')?.message).toMatch(/^cron is not valid/);
  });
});

describe('schedule and retention', () => {
  it.each([
    ['0 3 * * *', '2026-03-01T09:00:00Z', '2026-03-02T03:00:00.000Z'],
    ['0 3 * * *', '2026-03-01T02:59:00Z', '2026-03-01T03:00:00.000Z'],
    ['*/15 * * * *', '2026-03-01T09:00:00Z', '2026-03-01T09:15:00.000Z'],
  ])('%s after %s runs at %s', (cron, after, next) => {
    expect(nextRun(cron, new Date(after))?.toISOString()).toBe(next);
  });

  it('expires a backup retention days after it completed', () => {
    expect(expiresAt(NOW, 7).toISOString()).toBe('2026-03-08T09:00:00.000Z');
  });
});

describe('database status', () => {
  it.each([
    ['ready', 'available', 'True', 'Available'],
    ['provisioning', 'provisioning', 'False', 'Provisioning'],
    ['degraded', 'degraded', 'False', 'Degraded'],
    ['recorded', 'recorded', 'False', 'Recorded'],
  ] as const)('a %s workload is %s with Ready %s (%s)', (state, phase, ready, reason) => {
    const status = databaseStatus(undefined, observation({ state }), { generation: GENERATION, now: NOW });
    expect(status.phase).toBe(phase);
    expect(status.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: ready,
      reason,
      observedGeneration: GENERATION,
    });
  });

  it('reports endpoint, version and size in whole mebibytes, and never a credential', () => {
    const status = databaseStatus(undefined, observation(), { generation: GENERATION, now: NOW });
    expect(status).toMatchObject({
      realization: 'real',
      version: '15.18',
      endpoint: { host: '127.0.0.1', port: 5433 },
      storageUsedMb: 6,
      observedGeneration: GENERATION,
    });
    expect(JSON.stringify(status)).not.toContain('secret');
  });

  it('keeps a recorded database from ever reading as Ready, and says why', () => {
    const status = databaseStatus(
      undefined,
      { realization: 'recorded', state: 'recorded', message: 'set CLOUDPLANE_MONGODB_ADMIN_URL' },
      { generation: 1, now: NOW },
    );
    expect(status).toMatchObject({
      phase: 'recorded',
      realization: 'recorded',
      message: 'set CLOUDPLANE_MONGODB_ADMIN_URL',
    });
    expect(status.conditions?.[0]?.status).toBe('False');
  });

  it('moves lastTransitionTime only when Ready flips', () => {
    const first = databaseStatus(undefined, observation({ state: 'provisioning' }), {
      generation: 1,
      now: NOW,
    });
    const later = new Date(NOW.getTime() + 60_000);
    const still = databaseStatus(first, observation({ state: 'provisioning' }), {
      generation: 1,
      now: later,
    });
    expect(still.conditions?.[0]?.lastTransitionTime).toBe(first.conditions?.[0]?.lastTransitionTime);
    const ready = databaseStatus(still, observation(), { generation: 1, now: later });
    expect(ready.conditions?.[0]?.lastTransitionTime).toBe(later.toISOString());
  });

  it('reports a refusal of a database never made as error, with the server reason', () => {
    const failed = databaseErrorStatus(
      undefined,
      { reason: 'PortPoolExhausted', message: 'no free port in CLOUDPLANE_REDIS_PORTS' },
      { generation: 1, now: NOW },
    );
    expect(failed).toMatchObject({
      phase: 'error',
      realization: 'recorded',
      message: 'no free port in CLOUDPLANE_REDIS_PORTS',
    });
    expect(failed.conditions?.[0]).toMatchObject({ status: 'False', reason: 'PortPoolExhausted' });
  });

  it('reports a database it had made whose server now refuses as degraded, keeping what was known', () => {
    const credentials = { vaultClusterId: 'managed', vaultPath: 'databases/db_0a', version: 1, rotation: 0 };
    const known = databaseStatus(undefined, observation(), { generation: 1, now: NOW, credentials });
    const failed = databaseErrorStatus(
      known,
      { reason: 'ServerUnreachable', message: 'connect ECONNREFUSED 127.0.0.1:5433' },
      { generation: 2, now: NOW },
    );
    expect(failed).toMatchObject({
      phase: 'degraded',
      message: 'connect ECONNREFUSED 127.0.0.1:5433',
      endpoint: { port: 5433 },
      observedGeneration: 2,
    });
    expect(failed.conditions?.[0]).toMatchObject({ status: 'False', reason: 'ServerUnreachable' });
  });
});

describe('share status', () => {
  const share = (usedBytes: number): ShareObservation => ({
    realization: 'real',
    state: 'ready',
    message: 'a local directory on the platform host, not served over NFS',
    mount: { server: '127.0.0.1', path: '/data/shares/org/nfs_0a' },
    usedBytes,
  });

  it.each([
    [0, 'False', 0],
    [1024 ** 3, 'False', 1024],
    [1024 ** 3 + 1, 'True', 1025],
  ])('holding %i bytes of 1 GB: QuotaExceeded %s, %i MB used', (used, exceeded, usedMb) => {
    const status = shareStatus(undefined, { name: 'assets', sizeGb: 1 }, share(used), {
      generation: 1,
      now: NOW,
    });
    expect(status.phase).toBe('available');
    expect(status.usedMb).toBe(usedMb);
    expect(status.conditions?.find((condition) => condition.type === 'QuotaExceeded')?.status).toBe(exceeded);
  });

  it.each([
    ['a share never made', undefined, {}],
    [
      'an available share',
      shareStatus(undefined, { name: 'assets', sizeGb: 1 }, share(0), { generation: 1, now: NOW }),
      { realization: 'real', usedMb: 0, mount: { server: '127.0.0.1', path: '/data/shares/org/nfs_0a' } },
    ],
  ])('refuses %s: in error with the reason, keeping what status knew', (_case, current, kept) => {
    const failure = { reason: 'ShareFailed', message: 'no space left on device' };
    const status = shareErrorStatus(current, failure, { generation: 2, now: NOW });
    expect(status).toMatchObject({
      ...kept,
      phase: 'error',
      message: failure.message,
      observedGeneration: 2,
    });
    expect(status.conditions?.find((condition) => condition.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ShareFailed',
      message: failure.message,
      observedGeneration: 2,
    });
  });

  it.each([
    { realization: 'real', state: 'ready', counts: true },
    { realization: 'real', state: 'provisioning', counts: false },
    { realization: 'real', state: 'degraded', counts: false },
    { realization: 'recorded', state: 'ready', counts: false },
  ])('a $realization workload $state counts for usage: $counts', ({ counts, ...observation }) => {
    expect(billable(observation)).toBe(counts);
  });
});

describe('backup status', () => {
  it.each([
    ['pending', 'False', 'Pending'],
    ['running', 'False', 'Running'],
    ['completed', 'True', 'Completed'],
    ['failed', 'False', 'Failed'],
  ] as const)('%s: Ready %s (%s)', (phase, ready, reason) => {
    const status = backupStatus(undefined, phase, { message: 'm' }, { generation: 1, now: NOW });
    expect(status.phase).toBe(phase);
    expect(status.conditions?.[0]).toMatchObject({ status: ready, reason });
  });
});

describe('backup schedule steps', () => {
  const at = (time: string) => new Date(time);
  it.each([
    [
      'a new schedule plans its first moment',
      undefined,
      true,
      '2026-03-01T09:07:00Z',
      undefined,
      '2026-03-01T09:10:00.000Z',
    ],
    [
      'a changed schedule plans afresh',
      '2026-03-01T09:05:00Z',
      true,
      '2026-03-01T09:07:00Z',
      undefined,
      '2026-03-01T09:10:00.000Z',
    ],
    [
      'a planned moment still ahead waits',
      '2026-03-01T09:10:00Z',
      false,
      '2026-03-01T09:07:00Z',
      undefined,
      '2026-03-01T09:10:00.000Z',
    ],
    [
      'a planned moment reached is due',
      '2026-03-01T09:10:00Z',
      false,
      '2026-03-01T09:10:00Z',
      '2026-03-01T09:10:00.000Z',
      '2026-03-01T09:15:00.000Z',
    ],
    [
      'moments missed while down are due once',
      '2026-03-01T09:10:00Z',
      false,
      '2026-03-01T11:02:00Z',
      '2026-03-01T09:10:00.000Z',
      '2026-03-01T11:05:00.000Z',
    ],
  ])('%s', (_case, planned, changed, now, due, next) => {
    const step = scheduleStep({ cron: '*/5 * * * *', planned, scheduleChanged: changed, now: at(now) });
    expect(step.due?.toISOString()).toBe(due);
    expect(step.next.toISOString()).toBe(next);
  });
});

describe('database reconcile decisions', () => {
  it.each([
    ['a valid spec', { engine: 'postgresql', version: '16' }, undefined],
    ['an unknown engine', { engine: 'oracle' }, 'engine'],
    ['a version not offered', { engine: 'postgresql', version: '9' }, 'version'],
    ['a schedule that does not parse', { engine: 'redis', backupSchedule: { cron: '* *' } }, 'cron'],
  ])('%s', (_case, spec, field) => {
    expect(databaseSpecProblem(spec as unknown as DatabaseSpec)?.field).toBe(field);
  });

  it.each([
    ['a spec never observed', undefined, 1, true],
    ['a new generation', { observedGeneration: 1, phase: 'available' }, 2, true],
    ['an observed generation', { observedGeneration: 2, phase: 'available' }, 2, false],
    ['a refused database, at each look', { observedGeneration: 2, phase: 'error' }, 2, true],
    ['a share provisioning as observed', { observedGeneration: 2, phase: 'provisioning' }, 2, false],
  ] as const)('claims its quota for %s: %s', (_case, status, generation, claims) => {
    expect(claimsQuota(status, generation)).toBe(claims);
  });

  it.each([
    [false, 0, 0, true],
    [true, 0, 0, false],
    [true, 2, 1, true],
    [true, 2, 2, false],
  ])('stored %s, rotation %i asked and %i done: rotate %s', (stored, wanted, done, rotate) => {
    expect(rotationDue({ stored, wanted, done })).toBe(rotate);
  });

  it.each([
    ['a backup far ahead waits the refresh', 60 * 60_000, 30_000],
    ['a backup soon waits until it is due', 5_000, 5_000],
    ['a backup due now waits a second', 0, 1_000],
  ])('%s', (_case, aheadMs, requeueMs) => {
    const clock = new FakeClock(NOW);
    const next = new Date(clock.now().getTime() + aheadMs);
    expect(scheduledRequeueMs(30_000, next, clock.now())).toBe(requeueMs);
  });

  it('names a scheduled backup after its database and moment, the same at each retry', () => {
    const clock = new FakeClock(NOW);
    const first = scheduledBackupName('uid-1', clock.now());
    expect(scheduledBackupName('uid-1', clock.now())).toBe(first);
    expect(scheduledBackupName('uid-2', clock.now())).not.toBe(first);
    expect(first).toMatch(/^bkp-[0-9a-f]{12}$/);
  });
});

/** What a backup or restore waiting for a part of it is told. */
const wait = (message: string) => ({ waitMs: 2_000, message });
/** What a backup or restore of a part that does not exist is told. */
const missing = (part: string) => ({ failure: `the ${part} does not exist` });

describe('backup reconcile decisions', () => {
  it.each([
    ['no expiry: an hour', undefined, 0, { expired: false, requeueAfterMs: 3_600_000 }],
    ['expiring in a minute: then', '2026-03-01T09:01:00Z', 0, { expired: false, requeueAfterMs: 60_000 }],
    ['expiring in a day: an hour', '2026-03-02T09:00:00Z', 0, { expired: false, requeueAfterMs: 3_600_000 }],
    ['expiring now', '2026-03-01T09:01:00Z', 60_000, { expired: true }],
    ['expired long ago', '2026-02-01T09:00:00Z', 0, { expired: true }],
  ])('a finished backup %s', async (_case, expiry, elapsedMs, step) => {
    const clock = new FakeClock(NOW);
    await clock.advance(elapsedMs);
    expect(finishedBackupStep(expiry, clock.now())).toEqual(step);
  });
});

describe('what a backup or restore waits for', () => {
  const database = (status: Partial<DatabaseStatus> | undefined) =>
    ({
      metadata: { name: 'db-00000000000a' },
      spec: { engine: 'postgresql', name: 'orders' },
      status,
    }) as unknown as Database;
  const share = (phase: string | undefined, extra: Partial<NfsShare['metadata']> = {}) =>
    ({
      metadata: { name: 'nfs-00000000000c', ...extra },
      spec: { name: 'files' },
      status: { phase },
    }) as unknown as NfsShare;
  const backup = (status: Partial<BackupStatus> | undefined) =>
    ({
      metadata: { name: 'bkp-00000000000d' },
      spec: { source: { kind: 'Database', name: 'db-00000000000a' } },
      status,
    }) as unknown as Backup;
  /** One decision's cases as rows of the table: what it is asked, by the object's name, and its answer. */
  const asks = <T>(
    verb: string,
    decide: (part: T | undefined, name: string) => Hold | undefined,
    name: string,
    cases: [string, T | undefined, Hold | undefined][],
  ): [string, () => Hold | undefined, Hold | undefined][] =>
    cases.map(([part, given, hold]) => [`${verb} ${part}`, () => decide(given, name), hold]);

  it.each([
    ...asks('backs up', backupSourceHold, 'db-00000000000a', [
      ['a missing database', undefined, missing('database db_00000000000a')],
      [
        'a recorded database',
        database({ realization: 'recorded', message: 'no server here' }),
        { failure: 'the database is only recorded (no server here): there is no data to back up' },
      ],
      [
        'a database provisioning',
        database({ phase: 'provisioning' }),
        wait('waiting for the database to be available'),
      ],
      ['an available database', database({ phase: 'available', realization: 'real' }), undefined],
    ]),
    ...asks('backs up', shareHold, 'nfs-00000000000c', [
      ['a missing share', undefined, missing('share nfs_00000000000c')],
      ['a share provisioning', share('provisioning'), wait('waiting for the share to be available')],
      ['an available share', share('available'), undefined],
    ]),
    ...asks('restores into', restoreShareHold, 'nfs-00000000000c', [
      ['a missing share', undefined, missing('share nfs_00000000000c')],
      [
        'a share being deleted',
        share('available', { deletionTimestamp: NOW.toISOString() }),
        missing('share nfs_00000000000c'),
      ],
      ['a share provisioning', share('provisioning'), wait('waiting for the share to be available')],
      ['an available share', share('available'), undefined],
    ]),
    ...asks('loads', restoreBackupHold, 'bkp-00000000000d', [
      ['a missing backup', undefined, missing('backup bkp_00000000000d')],
      [
        'a failed backup',
        backup({ phase: 'failed', message: 'disk full' }),
        { failure: 'the backup failed: disk full' },
      ],
      ['a running backup', backup({ phase: 'running' }), wait('waiting for the backup to complete')],
      ['a completed backup', backup({ phase: 'completed', location: 'file:///b' }), undefined],
    ]),
  ])('%s', (_case, decide, hold) => {
    expect(decide()).toEqual(hold);
  });
});

describe('restore reconcile decisions', () => {
  const target = (status: Partial<DatabaseStatus>, extra: Partial<Database['metadata']> = {}) =>
    ({
      metadata: { name: 'db-00000000000b', ...extra },
      spec: { engine: 'postgresql', name: 'copy' },
      status,
    }) as unknown as Database;

  it.each([
    ['a missing database', undefined, 'postgresql', missing('database db_00000000000b')],
    [
      'a database being deleted',
      target({ phase: 'available' }, { deletionTimestamp: '2026-03-01T09:00:00Z' }),
      'postgresql',
      missing('database db_00000000000b'),
    ],
    [
      'a database of another engine',
      target({ phase: 'available' }),
      'mysql',
      { failure: 'a mysql backup cannot be restored into a postgresql database' },
    ],
    [
      'a recorded database',
      target({ realization: 'recorded' }),
      'postgresql',
      { failure: 'the target database is only recorded: nothing runs to restore into' },
    ],
    [
      'a database in error',
      target({ phase: 'error', message: 'refused' }),
      'postgresql',
      { failure: 'the target database is in error: refused' },
    ],
    [
      'a database provisioning',
      target({ phase: 'provisioning' }),
      undefined,
      wait('waiting for the target database to be available'),
    ],
    ['an available database', target({ phase: 'available', realization: 'real' }), 'postgresql', undefined],
  ])('restores into %s', (_case, database, engine, hold) => {
    expect(restoreTargetHold(database, 'db-00000000000b', engine)).toEqual(hold);
  });
});
