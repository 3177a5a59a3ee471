/**
 * Usage through the REST API: samples stand for the collectors, the hourly job aggregates them on
 * the platform's fake clock (2026-03-01T09:00Z), and the usage routes read per meter, per
 * resource and in cents, each organization only its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDeps } from '../../jobs/job.js';
import { runJob } from '../../jobs/job-runner.js';
import { aggregateUsage, usageAggregation } from '../../jobs/usage-aggregation.js';
import { createLogger } from '../../observability/logger.js';
import { enveloped } from '../fixtures/api-bodies.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  TEST_POSTGRES_SERVER_URL,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;

if (!TEST_POSTGRES_SERVER_URL) {
  console.warn('usage API: CLOUDPLANE_TEST_DATABASE_URL is unset; the PostgreSQL data plane is not tested');
}
const BACKENDS = TEST_POSTGRES_SERVER_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(BACKENDS)('usage on %s', (backend) => {
  let app: TestPlatform;
  let alice: TestAccount & { namespace: string };
  let bob: TestAccount & { namespace: string };
  let postgres: TestPostgresDatabase | undefined;

  async function account(name: string): Promise<TestAccount & { namespace: string }> {
    const signedIn = await registerAndSignIn(app, name);
    const me = await enveloped<{ current_organization_id: string }>(
      await app.call('GET', '/v1/auth/me', { token: signedIn.token }),
    );
    return { ...signedIn, namespace: `org-${me.data.current_organization_id.slice(4)}` };
  }

  beforeAll(async () => {
    postgres = backend === 'postgres' ? await createTestPostgresDatabase() : undefined;
    app = await startPlatform({
      controllers: false,
      databaseUrl: postgres?.url,
      // the test moves the clock by hours; sign-ins must outlast it
      env: { CLOUDPLANE_ACCESS_TOKEN_TTL: '86400' },
    });
    alice = await account('Alice');
    bob = await account('Bob');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  interface Sample {
    organization: string;
    meter: string;
    unit: string;
    resourceType: string;
    resourceId: string;
    resourceName: string;
    hour: string;
    quantity: number;
    recordedAt: string;
    plan?: string;
  }

  /** Writes a sample as a collector does: a deterministic id, counted once. */
  async function record(sample: Sample): Promise<void> {
    await app.database.kysely
      .insertInto('usage_samples')
      .values({
        id: `${sample.meter}:${sample.resourceId}:${sample.hour}`,
        organization: sample.organization,
        meter: sample.meter,
        unit: sample.unit,
        resource_type: sample.resourceType,
        resource_id: sample.resourceId,
        resource_name: sample.resourceName,
        hour: sample.hour,
        quantity: sample.quantity,
        recorded_at: sample.recordedAt,
        plan: sample.plan ?? null,
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  const hourAt = (hh: number) => `2026-03-01T${String(hh).padStart(2, '0')}:00:00.000Z`;
  const minutesInto = (hh: number, mm: number) => `2026-03-01T${String(hh).padStart(2, '0')}:${mm}:00.000Z`;

  /** One resource's hourly samples, each recorded five minutes into its hour (the running one at its start). */
  async function recordHours(
    resource: Omit<Sample, 'hour' | 'recordedAt'>,
    hours: readonly number[],
    now: string,
  ): Promise<void> {
    for (const hh of hours) {
      const recordedAt = minutesInto(hh, 5) < now ? minutesInto(hh, 5) : now;
      await record({ ...resource, hour: hourAt(hh), recordedAt });
    }
  }

  function jobDeps(): JobDeps {
    return {
      database: app.database,
      config: app.config.jobs,
      logger: createLogger('silent'),
      now: () => app.clock.now(),
    };
  }

  async function hourlyRows(organization?: string) {
    let query = app.database.kysely.selectFrom('usage_hourly').selectAll();
    if (organization) query = query.where('organization', '=', organization);
    return query.orderBy('organization').orderBy('resource_id').orderBy('meter').orderBy('hour').execute();
  }

  async function get(path: string, token = alice.token): Promise<{ status: number; body: Json }> {
    const response = await app.call('GET', path, { token });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const ORDERS = {
    meter: 'database.storage_gb_hours',
    unit: 'GB-hour',
    resourceType: 'database',
    resourceId: 'db_orders',
    resourceName: 'orders',
    quantity: 730,
  };
  const CACHE = {
    meter: 'database.memory_mb_hours',
    unit: 'MB-hour',
    resourceType: 'database',
    resourceId: 'db_cache',
    resourceName: 'cache',
    quantity: 1024,
  };
  const FILES = {
    meter: 'nfs.gb_hours',
    unit: 'GB-hour',
    resourceType: 'nfs_share',
    resourceId: 'nfs_files',
    resourceName: 'files',
    quantity: 100,
  };
  const EVENTS = {
    meter: 'streaming.cluster_hours',
    unit: 'hour',
    resourceType: 'streaming_cluster',
    resourceId: 'esc_events',
    resourceName: 'events',
    quantity: 1,
    plan: 'starter',
  };

  describe('usage, hour by hour', () => {
    it('aggregates every complete hour and the running one, provisionally', async () => {
      const now = app.clock.now().toISOString();
      expect(now).toBe(hourAt(9));
      for (const resource of [ORDERS, CACHE, FILES, EVENTS]) {
        await recordHours({ ...resource, organization: alice.namespace }, [6, 7, 8, 9], now);
      }
      await recordHours(
        { ...ORDERS, resourceId: 'db_bob', resourceName: 'ledger', organization: bob.namespace },
        [8],
        now,
      );

      const run = await runJob(usageAggregation, jobDeps(), 'manual');

      expect(run).toMatchObject({
        outcome: 'succeeded',
        summary: { hours: 4, samples: 17, late_samples: 0, window: { start: hourAt(6), end: hourAt(9) } },
      });
      const recorded = await app.database.kysely
        .selectFrom('job_runs')
        .select('summary')
        .where('id', '=', run!.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(recorded.summary)).toEqual(run!.summary);
      const orders = (await hourlyRows(alice.namespace)).filter((row) => row.resource_id === 'db_orders');
      expect(
        orders.map(({ hour, quantity, samples, provisional }) => ({ hour, quantity, samples, provisional })),
      ).toEqual([
        { hour: hourAt(6), quantity: 730, samples: 1, provisional: 0 },
        { hour: hourAt(7), quantity: 730, samples: 1, provisional: 0 },
        { hour: hourAt(8), quantity: 730, samples: 1, provisional: 0 },
        { hour: hourAt(9), quantity: 730, samples: 1, provisional: 1 },
      ]);
    });

    it('shows the month per meter', async () => {
      const usage = await get('/api/v1/usage');

      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({
        period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
        meters: [
          { meter: 'database.memory_mb_hours', unit: 'MB-hour', quantity: 4096, included: 0, billable: 4096 },
          {
            meter: 'database.storage_gb_hours',
            unit: 'GB-hour',
            quantity: 2920,
            included: 0,
            billable: 2920,
          },
          { meter: 'nfs.gb_hours', unit: 'GB-hour', quantity: 400, included: 0, billable: 400 },
          { meter: 'streaming.cluster_hours', unit: 'hour', quantity: 4, included: 0, billable: 4 },
        ],
        updated_at: hourAt(9),
      });
    });

    it('shows the databases per resource, and another family when asked', async () => {
      const databases = await get('/api/v1/usage/databases');
      expect(databases.status).toBe(200);
      expect(databases.body).toEqual([
        {
          resource_id: 'db_cache',
          resource_type: 'database',
          name: 'cache',
          meters: [{ meter: 'database.memory_mb_hours', unit: 'MB-hour', quantity: 4096 }],
        },
        {
          resource_id: 'db_orders',
          resource_type: 'database',
          name: 'orders',
          meters: [{ meter: 'database.storage_gb_hours', unit: 'GB-hour', quantity: 2920 }],
        },
      ]);

      const shares = await get('/api/v1/usage/databases?resource_type=nfs_share');
      expect(shares.body).toEqual([
        {
          resource_id: 'nfs_files',
          resource_type: 'nfs_share',
          name: 'files',
          meters: [{ meter: 'nfs.gb_hours', unit: 'GB-hour', quantity: 400 }],
        },
      ]);
    });

    it('counts late samples in the hour they belong to, and completes the provisional hour', async () => {
      await app.clock.advance(3_600_000);
      const now = app.clock.now().toISOString();
      // a share whose collector was down: its 07:00 hour arrives at 10:00
      await record({
        ...FILES,
        organization: alice.namespace,
        resourceId: 'nfs_late',
        resourceName: 'late',
        hour: hourAt(7),
        recordedAt: now,
      });
      await recordHours({ ...ORDERS, organization: alice.namespace }, [10], now);

      const run = await runJob(usageAggregation, jobDeps(), 'schedule');

      expect(run?.summary).toEqual({
        hours: 3,
        samples: 5 + 4 + 1,
        late_samples: 1,
        window: { start: hourAt(7), end: hourAt(10) },
      });
      const rows = await hourlyRows(alice.namespace);
      expect(rows.find((row) => row.resource_id === 'nfs_late')).toMatchObject({
        hour: hourAt(7),
        quantity: 100,
        provisional: 0,
      });
      expect(rows.filter((row) => row.provisional === 1).map((row) => [row.resource_id, row.hour])).toEqual([
        ['db_orders', hourAt(10)],
      ]);
      expect(rows.filter((row) => row.hour === hourAt(9)).every((row) => row.provisional === 0)).toBe(true);
      const shares = await get('/api/v1/usage/databases?resource_type=nfs_share');
      expect((shares.body as unknown as Json[]).map((share) => share.resource_id)).toEqual([
        'nfs_files',
        'nfs_late',
      ]);
    });

    it('writes the same rows when run again or replayed', async () => {
      const before = await hourlyRows();

      await runJob(usageAggregation, jobDeps(), 'manual');
      expect(await hourlyRows()).toEqual(before);

      await aggregateUsage(app.database, { now: app.clock.now(), replayFrom: new Date(hourAt(0)) });
      expect(await hourlyRows()).toEqual(before);

      // from nothing: the same sums, aggregated now
      await app.database.kysely.deleteFrom('usage_hourly').execute();
      await app.database.kysely.deleteFrom('usage_aggregation_state').execute();
      const replay = await aggregateUsage(app.database, { now: app.clock.now() });
      expect(replay.hours).toBe(5);
      const sums = (rows: Awaited<ReturnType<typeof hourlyRows>>) =>
        rows.map(({ aggregated_at: _, ...row }) => row);
      expect(sums(await hourlyRows())).toEqual(sums(before));
    });
  });

  describe('costs', () => {
    it('prices the month in cents, the total the sum of its line items', async () => {
      const costs = await get('/api/v1/usage/costs?period=current');

      expect(costs.status).toBe(200);
      const body = costs.body as {
        line_items: { resource_id: string; meter: string; quantity: number; amount_cents: number }[];
        subtotal_cents: number;
        total_cents: number;
      };
      expect(body).toMatchObject({
        period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
        currency: 'USD',
      });
      expect(
        body.line_items.map(({ resource_id, meter, quantity, amount_cents }) => ({
          resource_id,
          meter,
          quantity,
          amount_cents,
        })),
      ).toEqual([
        // 4 hours × 1024 MB at 500 cents per 1024 MB × 730 h: 2.74 cents
        { resource_id: 'db_cache', meter: 'database.memory_mb_hours', quantity: 4096, amount_cents: 3 },
        // 5 hours × 730 GB at 20 cents per 730 GB-hours
        { resource_id: 'db_orders', meter: 'database.storage_gb_hours', quantity: 3650, amount_cents: 100 },
        // 4 hours of starter in a 744-hour month: 2900 × 4 / 744 = 15.59
        { resource_id: 'esc_events', meter: 'streaming.cluster_hours', quantity: 4, amount_cents: 16 },
        // 400 GB-hours at 30 cents per 730: 16.44
        { resource_id: 'nfs_files', meter: 'nfs.gb_hours', quantity: 400, amount_cents: 16 },
        // 100 GB-hours: 4.11
        { resource_id: 'nfs_late', meter: 'nfs.gb_hours', quantity: 100, amount_cents: 4 },
      ]);
      expect(body.subtotal_cents).toBe(139);
      expect(body.total_cents).toBe(body.line_items.reduce((total, item) => total + item.amount_cents, 0));
    });

    it('answers a month by name, and an empty previous month', async () => {
      const march = await get('/api/v1/usage/costs?period=2026-03');
      expect(march.body.total_cents).toBe(139);

      const previous = await get('/api/v1/usage/costs?period=previous');
      expect(previous.body).toEqual({
        period: { start: '2026-02-01T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' },
        currency: 'USD',
        line_items: [],
        subtotal_cents: 0,
        total_cents: 0,
      });
    });

    it.each(['last-month', '2026-13', '2026-3'])(
      'refuses the period %j with a 422 naming it',
      async (period) => {
        const answer = await get(`/api/v1/usage/costs?period=${period}`);

        expect(answer.status).toBe(422);
        const error = answer.body.error as { code: string; message: string; details: Json };
        expect(error.message).toContain(JSON.stringify(period));
        expect(error.details).toEqual({ field: 'period' });
      },
    );
  });

  describe('tenancy', () => {
    it("never shows another organization's usage", async () => {
      const usage = await get('/api/v1/usage', bob.token);
      expect(usage.body.meters).toEqual([
        { meter: 'database.storage_gb_hours', unit: 'GB-hour', quantity: 730, included: 0, billable: 730 },
      ]);
      const databases = await get('/api/v1/usage/databases', bob.token);
      expect((databases.body as unknown as Json[]).map((resource) => resource.resource_id)).toEqual([
        'db_bob',
      ]);
      const costs = await get('/api/v1/usage/costs', bob.token);
      expect((costs.body.line_items as Json[]).map((item) => item.resource_id)).toEqual(['db_bob']);
      expect(costs.body.total_cents).toBe(20);

      const aliceDatabases = await get('/api/v1/usage/databases');
      expect(
        (aliceDatabases.body as unknown as Json[]).map((resource) => resource.resource_id),
      ).not.toContain('db_bob');
    });

    it('needs a caller', async () => {
      const response = await app.call('GET', '/api/v1/usage');
      expect(response.status).toBe(401);
    });
  });
});
