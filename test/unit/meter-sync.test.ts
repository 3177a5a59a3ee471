import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { billingConfig } from '../../config/billing.js';
import { ConfigError } from '../../config/env.js';
import { loadConfig } from '../../config/index.js';
import { openDataPlane } from '../../data-plane/data-plane.js';
import type { UsageHourlyTable } from '../../data-plane/schema.js';
import type { JobDeps } from '../../jobs/job.js';
import { runJob } from '../../jobs/job-runner.js';
import { meterSync } from '../../jobs/meter-sync.js';
import { createLogger } from '../../observability/logger.js';
import { startBillingServer, type BillingServer } from '../fixtures/billing-server.js';
import { createTestPostgresDatabase, describeWithPostgres } from '../fixtures/db-postgres.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

const API_KEY = 'sk_test_meter_sync_0123456789';
const STORAGE = 'database.storage_gb_hours';
const MEMORY = 'database.memory_mb_hours';
/** 2024-04-30T00:00:00Z, the start of the day before the first run. */
const APRIL_30 = 1714435200;

/** A migrated data plane the cases run against, and how to get rid of it. */
type OpenDatabase = () => Promise<TestSqliteDatabase>;

async function openTestPostgresDataPlane(): Promise<TestSqliteDatabase> {
  const postgres = (await createTestPostgresDatabase())!;
  const database = await openDataPlane({ url: postgres.url, sqlitePath: '', logger: createLogger('silent') });
  return {
    database,
    dispose: async () => {
      await database.close();
      await postgres.drop();
    },
  };
}

describe('meter sync on SQLite', () => meterSyncCases(openTestSqliteDatabase));
describeWithPostgres('meter sync on PostgreSQL', () => meterSyncCases(openTestPostgresDataPlane));

function meterSyncCases(open: OpenDatabase): void {
  let test: TestSqliteDatabase;
  let server: BillingServer;
  let clock: Date;
  let dir: string;

  beforeEach(async () => {
    test = await open();
    clock = new Date('2024-05-01T02:00:00.000Z');
    server = await startBillingServer({ apiKey: API_KEY, now: () => clock });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-meter-sync-'));
  });

  afterEach(async () => {
    await server.close();
    await test.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function deps(billing: { url?: string; apiKey?: string } = { url: server.url, apiKey: API_KEY }): JobDeps {
    return {
      database: test.database,
      config: {
        ...loadConfig({}).jobs,
        billing: {
          url: billing.url,
          apiKey: billing.apiKey,
          outboxFile: path.join(dir, 'outbox', 'meter-events.jsonl'),
        },
      },
      logger: createLogger('silent'),
      now: () => clock,
    };
  }

  async function usage(row: Partial<UsageHourlyTable> & Pick<UsageHourlyTable, 'hour' | 'quantity'>) {
    await test.database.kysely
      .insertInto('usage_hourly')
      .values({
        organization: 'org-aaaa',
        meter: STORAGE,
        resource_id: 'db_one',
        resource_type: 'database',
        resource_name: 'one',
        unit: 'GB-hours',
        samples: 1,
        provisional: 0,
        aggregated_at: '2024-05-01T01:05:00.000Z',
        ...row,
      })
      .execute();
  }

  async function aDayOfUsage() {
    await usage({ hour: '2024-04-30T00:00:00.000Z', quantity: 1.2 });
    await usage({ hour: '2024-04-30T23:00:00.000Z', quantity: 2.4 });
    await usage({ hour: '2024-04-30T05:00:00.000Z', quantity: 1, resource_id: 'db_two' });
    await usage({ hour: '2024-04-30T05:00:00.000Z', quantity: 512, meter: MEMORY, unit: 'MB-hours' });
    await usage({ hour: '2024-04-30T07:00:00.000Z', quantity: 10, organization: 'org-bbbb' });
    // Neither a provisional hour nor the running day is billed yet.
    await usage({ hour: '2024-04-30T08:00:00.000Z', quantity: 100, provisional: 1 });
    await usage({ hour: '2024-05-01T01:00:00.000Z', quantity: 100 });
  }

  async function unsent() {
    return test.database.kysely
      .selectFrom('meter_events')
      .select('identifier')
      .where('sent_at', 'is', null)
      .execute();
  }

  it('sends one meter event per organization, meter and day, and nothing more when run twice', async () => {
    await aDayOfUsage();

    const first = await runJob(meterSync, deps(), 'schedule');
    const second = await runJob(meterSync, deps(), 'schedule');

    expect(first).toMatchObject({
      outcome: 'succeeded',
      summary: { day: '2024-04-30', sent: 3, skipped_existing: 0, too_old: 0, revisions: 0 },
    });
    expect(second).toMatchObject({
      outcome: 'succeeded',
      summary: { day: '2024-04-30', sent: 0, skipped_existing: 3, too_old: 0, revisions: 0 },
    });
    expect(server.statuses).toEqual([200, 200, 200]);
    expect(
      server.events.map(({ event_name, identifier, payload, timestamp }) => ({
        event_name,
        identifier,
        payload,
        timestamp,
      })),
    ).toEqual([
      {
        event_name: 'database_memory_mb_hours',
        identifier: `org_aaaa/${MEMORY}/2024-04-30`,
        payload: { stripe_customer_id: 'org_aaaa', value: '512' },
        timestamp: APRIL_30,
      },
      {
        event_name: 'database_storage_gb_hours',
        identifier: `org_aaaa/${STORAGE}/2024-04-30`,
        payload: { stripe_customer_id: 'org_aaaa', value: '5' },
        timestamp: APRIL_30,
      },
      {
        event_name: 'database_storage_gb_hours',
        identifier: `org_bbbb/${STORAGE}/2024-04-30`,
        payload: { stripe_customer_id: 'org_bbbb', value: '10' },
        timestamp: APRIL_30,
      },
    ]);
  });

  it('sends usage that arrives after its day was sent as a revision carrying the difference', async () => {
    await usage({ hour: '2024-04-30T10:00:00.000Z', quantity: 4 });
    await runJob(meterSync, deps(), 'schedule');

    await usage({ hour: '2024-04-30T11:00:00.000Z', quantity: 3, aggregated_at: '2024-05-01T09:00:00.000Z' });
    clock = new Date('2024-05-02T02:00:00.000Z');
    const late = await runJob(meterSync, deps(), 'schedule');

    expect(late).toMatchObject({
      outcome: 'succeeded',
      summary: { day: '2024-05-01', sent: 1, skipped_existing: 0, revisions: 1 },
    });
    expect(server.events.map(({ identifier, payload }) => [identifier, payload.value])).toEqual([
      [`org_aaaa/${STORAGE}/2024-04-30`, '4'],
      [`org_aaaa/${STORAGE}/2024-04-30-r1`, '3'],
    ]);
  });

  it('fails the run while the provider fails, then sends the same events once it recovers', async () => {
    await aDayOfUsage();
    server.failNext(2);

    const failed = await runJob(meterSync, deps(), 'schedule');
    expect(failed).toMatchObject({ outcome: 'failed' });
    expect(failed?.error).toContain('HTTP 500');
    expect(failed?.error).toContain('api_error: An unknown error occurred.');
    expect(await unsent()).toHaveLength(3);

    clock = new Date('2024-05-01T02:10:00.000Z');
    const stillFailing = await runJob(meterSync, deps(), 'schedule');
    expect(stillFailing).toMatchObject({ outcome: 'failed' });

    clock = new Date('2024-05-01T02:20:00.000Z');
    const recovered = await runJob(meterSync, deps(), 'schedule');
    expect(recovered).toMatchObject({ outcome: 'succeeded', summary: { sent: 3, revisions: 0 } });
    expect(server.events).toHaveLength(3);
    expect(await unsent()).toEqual([]);
    const runs = await test.database.kysely
      .selectFrom('job_runs')
      .select('outcome')
      .orderBy('started_at')
      .execute();
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'failed', 'succeeded']);
  });

  it('resends an event the provider took but whose answer was lost, without the provider counting it twice', async () => {
    await aDayOfUsage();
    await runJob(meterSync, deps(), 'schedule');
    // As if the answers had never arrived: the events wait to be sent again.
    await test.database.kysely.updateTable('meter_events').set({ sent_at: null }).execute();

    const retry = await runJob(meterSync, deps(), 'schedule');

    expect(retry).toMatchObject({ outcome: 'succeeded', summary: { sent: 3 } });
    expect(server.statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(server.events).toHaveLength(3);
  });

  it('fails the run with the provider reason when the key is refused, and sends nothing', async () => {
    await aDayOfUsage();

    const run = await runJob(
      meterSync,
      deps({ url: server.url, apiKey: 'sk_test_wrong_key_98765' }),
      'schedule',
    );

    expect(run).toMatchObject({ outcome: 'failed' });
    expect(run?.error).toContain('HTTP 401');
    expect(run?.error).toContain('invalid_request_error: Invalid API Key provided');
    expect(run?.error).not.toContain('sk_test_wrong_key_98765');
    expect(server.events).toEqual([]);
    expect(await unsent()).toHaveLength(3);
  });

  it('writes the events to the outbox file without a billing URL, once', async () => {
    await aDayOfUsage();

    const first = await runJob(meterSync, deps({}), 'schedule');
    const second = await runJob(meterSync, deps({}), 'schedule');

    expect(first).toMatchObject({ outcome: 'succeeded', summary: { sent: 3 } });
    expect(second).toMatchObject({ outcome: 'succeeded', summary: { sent: 0, skipped_existing: 3 } });
    const lines = fs
      .readFileSync(path.join(dir, 'outbox', 'meter-events.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      {
        event_name: 'database_memory_mb_hours',
        identifier: `org_aaaa/${MEMORY}/2024-04-30`,
        timestamp: APRIL_30,
        payload: { stripe_customer_id: 'org_aaaa', value: '512' },
      },
      {
        event_name: 'database_storage_gb_hours',
        identifier: `org_aaaa/${STORAGE}/2024-04-30`,
        timestamp: APRIL_30,
        payload: { stripe_customer_id: 'org_aaaa', value: '5' },
      },
      {
        event_name: 'database_storage_gb_hours',
        identifier: `org_bbbb/${STORAGE}/2024-04-30`,
        timestamp: APRIL_30,
        payload: { stripe_customer_id: 'org_bbbb', value: '10' },
      },
    ]);
  });

  it('reports days older than the provider takes instead of sending them, and sends the oldest it takes', async () => {
    await usage({ hour: '2024-03-27T12:00:00.000Z', quantity: 6 });
    await usage({ hour: '2024-03-28T12:00:00.000Z', quantity: 7 });

    const first = await runJob(meterSync, deps(), 'schedule');
    const second = await runJob(meterSync, deps(), 'schedule');
    await usage({ hour: '2024-03-27T13:00:00.000Z', quantity: 1, aggregated_at: '2024-05-01T03:00:00.000Z' });
    clock = new Date('2024-05-01T04:00:00.000Z');
    const afterLateUsage = await runJob(meterSync, deps(), 'manual');

    expect(first).toMatchObject({ outcome: 'succeeded', summary: { sent: 1, too_old: 1 } });
    expect(second).toMatchObject({
      outcome: 'succeeded',
      summary: { sent: 0, too_old: 0, skipped_existing: 1 },
    });
    expect(afterLateUsage).toMatchObject({ outcome: 'succeeded', summary: { sent: 0, too_old: 1 } });
    expect(server.events.map((event) => event.identifier)).toEqual([`org_aaaa/${STORAGE}/2024-03-28`]);
  });
}

describe('billing server', () => {
  let server: BillingServer;
  const now = new Date('2024-05-01T02:00:00.000Z');

  beforeEach(async () => {
    server = await startBillingServer({ apiKey: API_KEY, now: () => now });
  });

  afterEach(async () => {
    await server.close();
  });

  function post(fields: Record<string, string>, key = API_KEY) {
    return fetch(`${server.url}/v1/billing/meter_events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  }

  const event = {
    event_name: 'nfs_gb_hours',
    identifier: 'org_aaaa/nfs.gb_hours/2024-04-30',
    timestamp: String(APRIL_30),
    'payload[stripe_customer_id]': 'org_aaaa',
    'payload[value]': '3',
  };

  it('names a missing field as Stripe does', async () => {
    const { event_name: _, ...withoutName } = event;
    const response = await post(withoutName);

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        message: 'Missing required param: event_name.',
        param: 'event_name',
      },
    });
  });

  it('refuses a timestamp older than 35 days', async () => {
    const response = await post({ ...event, timestamp: String(APRIL_30 - 35 * 86400) });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'timestamp' } });
  });

  it('answers a repeated identifier with the stored event', async () => {
    const first = await post(event);
    const repeat = await post({ ...event, 'payload[value]': '9' });

    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual(await first.json());
    expect(server.events).toHaveLength(1);
  });
});

describe('billing settings', () => {
  const place = { dataDir: '/var/lib/cloudplane' };

  it('sends to the outbox file without a URL', () => {
    expect(billingConfig({}, place)).toEqual({
      url: undefined,
      apiKey: undefined,
      outboxFile: '/var/lib/cloudplane/outbox/meter-events.jsonl',
    });
  });

  it.each(['https://billing.example.com/', 'http://127.0.0.1:8080', 'http://localhost:8080'])(
    'takes %s',
    (url) => {
      expect(
        billingConfig({ CLOUDPLANE_BILLING_URL: url, CLOUDPLANE_BILLING_API_KEY: 'sk' }, place).url,
      ).toBe(url.replace(/\/$/, ''));
    },
  );

  it('refuses plain http to a host that is not loopback', () => {
    expect(() =>
      billingConfig(
        { CLOUDPLANE_BILLING_URL: 'http://billing.example.com', CLOUDPLANE_BILLING_API_KEY: 'sk' },
        place,
      ),
    ).toThrow(ConfigError);
  });

  it('refuses a URL without a key', () => {
    expect(() => billingConfig({ CLOUDPLANE_BILLING_URL: 'https://billing.example.com' }, place)).toThrow(
      'CLOUDPLANE_BILLING_API_KEY: expected a value when CLOUDPLANE_BILLING_URL is set',
    );
  });
});
