/**
 * A day of the platform's background work, end to end on its fake clock: the controllers write
 * usage samples of a real database and share as time passes, the hourly aggregation and the usage
 * API count them, the costs add up to the cent, the daily meter sync sends one event per
 * organization, meter and day to a billing server that speaks Stripe's meter events (even when
 * run twice), and garbage collection reports in dry run.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { garbageCollection } from '../../jobs/garbage-collection.js';
import type { JobDeps } from '../../jobs/job.js';
import { runJob } from '../../jobs/job-runner.js';
import { meterSync } from '../../jobs/meter-sync.js';
import { usageAggregation } from '../../jobs/usage-aggregation.js';
import { createLogger } from '../../observability/logger.js';
import { registerAndSignIn, signIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startBillingServer, type BillingServer } from '../fixtures/billing-server.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const available = fs.existsSync(REDIS_SERVER);
if (!available) console.warn(`SKIPPING the day of usage and billing: ${REDIS_SERVER} is missing`);

type Json = Record<string, unknown>;
const API_KEY = 'sk_test_day_of_usage';
const HOUR_MS = 3_600_000;

describe.skipIf(!available)('a day of usage, billing and garbage collection', () => {
  let app: TestPlatform;
  let billing: BillingServer;
  let account: TestAccount;
  let deps: JobDeps;

  const get = async (route: string) => {
    const response = await app.call('GET', route, { token: account.token });
    return { status: response.status, body: (await response.json()) as Json };
  };

  beforeAll(async () => {
    billing = await startBillingServer({ apiKey: API_KEY, now: () => app.clock.now() });
    app = await startPlatform({
      env: {
        CLOUDPLANE_BILLING_URL: billing.url,
        CLOUDPLANE_BILLING_API_KEY: API_KEY,
        CLOUDPLANE_REDIS_PORTS: '27470-27479',
      },
    });
    deps = {
      database: app.database,
      config: app.config.jobs,
      logger: createLogger('silent'),
      now: () => app.clock.now(),
    };
    account = await registerAndSignIn(app, 'Day Keeper');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await billing?.close();
  }, 60_000);

  it('counts the hours of a database and a share, prices them, bills each meter once and reports garbage', async () => {
    const database = await app.call('POST', '/v1/databases', {
      token: account.token,
      body: { name: 'cache', engine: 'redis', memory_mb: 64 },
    });
    expect(database.status).toBe(201);
    const share = await app.call('POST', '/v1/nfs-shares', {
      token: account.token,
      body: { name: 'files', size_gb: 2 },
    });
    expect(share.status).toBe(201);
    const databaseId = ((await database.json()) as { data: { id: string } }).data.id;
    await eventually(
      async () =>
        expect(((await get(`/v1/databases/${databaseId}`)).body.data as Json).status).toBe('available'),
      30_000,
    );

    // The day passes a quarter of an hour at a time; the controllers refresh and sample as it goes.
    const start = app.clock.now().getTime();
    while (app.clock.now().getTime() < start + 24 * HOUR_MS) {
      await app.clock.advance(15 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sampledHours = () =>
      app.database.kysely
        .selectFrom('usage_samples')
        .select('hour')
        .where('resource_id', '=', databaseId)
        .execute();
    // The last step's refresh may still be writing its sample: count once nothing changes.
    let hoursSampled = await sampledHours();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const again = await sampledHours();
      if (again.length === hoursSampled.length) break;
      hoursSampled = again;
    }
    expect(hoursSampled.length).toBeGreaterThanOrEqual(20);
    // A day later the access token has expired: sign in again.
    account = { ...account, ...(await signIn(app, account.email, account.password)) };

    expect((await runJob(usageAggregation, deps, 'manual'))?.outcome).toBe('succeeded');
    const usage = (await get('/api/v1/usage')).body as { meters: { meter: string; quantity: number }[] };
    const memory = usage.meters.find((meter) => meter.meter === 'database.memory_mb_hours');
    expect(memory?.quantity).toBe(64 * hoursSampled.length);
    expect(usage.meters.find((meter) => meter.meter === 'nfs.gb_hours')?.quantity).toBeGreaterThan(0);

    const perResource = (await get('/api/v1/usage/databases')).body as unknown as { resource_id: string }[];
    expect(perResource.map((row) => row.resource_id)).toContain(databaseId);

    const costs = (await get('/api/v1/usage/costs?period=current')).body as {
      line_items: { amount_cents: number }[];
      subtotal_cents: number;
      total_cents: number;
    };
    expect(costs.line_items.length).toBeGreaterThanOrEqual(2);
    expect(costs.total_cents).toBe(costs.line_items.reduce((sum, item) => sum + item.amount_cents, 0));
    expect(Number.isInteger(costs.total_cents)).toBe(true);

    // The next day's 02:00 run bills the first day; a second run sends nothing more.
    await app.clock.advance(2 * HOUR_MS);
    expect((await runJob(usageAggregation, deps, 'manual'))?.outcome).toBe('succeeded');
    expect((await runJob(meterSync, deps, 'manual'))?.outcome).toBe('succeeded');
    const sent = billing.events.length;
    expect(sent).toBeGreaterThanOrEqual(2);
    const perKey = new Set(
      billing.events.map(
        (event) => `${event.payload.stripe_customer_id}/${event.event_name}/${event.timestamp}`,
      ),
    );
    expect(perKey.size).toBe(sent);
    expect((await runJob(meterSync, deps, 'manual'))?.outcome).toBe('succeeded');
    expect(billing.events).toHaveLength(sent);

    const collected = await runJob(garbageCollection, { ...deps, store: app.store }, 'manual');
    expect(collected).toMatchObject({ outcome: 'succeeded' });
    expect(collected?.summary).toMatchObject({ dryRun: true });
  }, 180_000);
});
