import { describe, expect, it } from 'vitest';
import {
  backupStatus,
  cronProblem,
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
