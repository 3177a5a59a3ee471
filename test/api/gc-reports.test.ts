/**
 * Garbage collection reports through the REST API: a dry run reports, a real run deletes, a
 * resource labelled `cloudplane.dev/gc-protect=true` is never touched, and only the platform's
 * administrators (`CLOUDPLANE_PLATFORM_ADMINS`) read the reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { DATABASE } from '../../crds/data-services.js';
import { garbageCollection } from '../../jobs/garbage-collection.js';
import { runJob } from '../../jobs/job-runner.js';
import { createLogger } from '../../observability/logger.js';
import { PASSWORD, registerAndSignIn, signIn, type TestAccount } from '../fixtures/accounts-app.js';
import { enveloped } from '../fixtures/api-bodies.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const ADMIN_EMAIL = 'ops@example.com';
const DAY_MS = 24 * 60 * 60 * 1000;

interface ReportItem {
  collector: string;
  resource: string;
  action: string;
}

describe('garbage collection reports', () => {
  let app: TestPlatform;
  let admin: { token: string };
  let member: TestAccount;

  beforeAll(async () => {
    const env = { CLOUDPLANE_PLATFORM_ADMINS: `Someone@example.com, ${ADMIN_EMAIL.toUpperCase()}` };
    app = await startPlatform({
      controllers: false,
      env,
    });
    const registered = await app.call('POST', '/v1/auth/register', {
      body: { email: ADMIN_EMAIL, password: PASSWORD, name: 'Ops' },
    });
    expect(registered.status).toBe(201);
    admin = await signIn(app, ADMIN_EMAIL, PASSWORD);
    member = await registerAndSignIn(app, 'Member');

    const old = new Date(app.clock.now().getTime() - 5 * DAY_MS).toISOString();
    const database: KubeObject = {
      apiVersion: 'cloudplane.dev/v1alpha1',
      kind: 'Database',
      metadata: {
        name: 'db-999999999999',
        namespace: 'org-a',
        labels: { 'cloudplane.dev/gc-protect': 'true' },
      },
      spec: { name: 'keep-me', engine: 'postgresql' },
    };
    await app.store.create(DATABASE, database);
    await app.database.kysely
      .insertInto('quota_claims')
      .values([
        {
          namespace: 'org-a',
          quota: 'databases',
          resource_id: 'db_999999999999',
          amount: 1,
          created_at: old,
        },
        {
          namespace: 'org-a',
          quota: 'databases',
          resource_id: 'db_bbbbbbbbbbbb',
          amount: 1,
          created_at: old,
        },
      ])
      .execute();
    const hour = new Date(app.clock.now().getTime() - 60 * DAY_MS).toISOString();
    await app.database.kysely
      .insertInto('usage_samples')
      .values({
        id: `database.storage_gb_hours:db_999999999999:${hour}`,
        organization: 'org_a',
        meter: 'database.storage_gb_hours',
        unit: 'GB-hour',
        resource_type: 'database',
        resource_id: 'db_999999999999',
        resource_name: 'keep-me',
        hour,
        quantity: 1,
        recorded_at: hour,
        plan: null,
      })
      .execute();
    await app.database.kysely
      .insertInto('usage_hourly')
      .values({
        organization: 'org_a',
        meter: 'database.storage_gb_hours',
        resource_id: 'db_999999999999',
        hour,
        resource_type: 'database',
        resource_name: 'keep-me',
        unit: 'GB-hour',
        plan: null,
        quantity: 1,
        samples: 1,
        provisional: 0,
        aggregated_at: hour,
      })
      .execute();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  async function collect(dryRun: boolean): Promise<string> {
    const run = await runJob(
      garbageCollection,
      {
        database: app.database,
        config: loadConfig({ CLOUDPLANE_GC_DRY_RUN: String(dryRun) }).jobs,
        logger: createLogger('silent'),
        now: () => app.clock.now(),
        store: app.store,
      },
      'manual',
    );
    expect(run?.outcome).toBe('succeeded');
    return (run!.summary as { report: string }).report;
  }

  async function claims(): Promise<string[]> {
    const rows = await app.database.kysely
      .selectFrom('quota_claims')
      .select('resource_id')
      .orderBy('resource_id')
      .execute();
    return rows.map((row) => row.resource_id);
  }

  async function report(id: string) {
    const response = await app.call('GET', `/v1/gc/reports/${id}`, { token: admin.token });
    expect(response.status).toBe(200);
    return (await enveloped<{ dry_run: boolean; items: ReportItem[] }>(response)).data;
  }

  it('reports in a dry run and deletes nothing', async () => {
    const id = await collect(true);

    const body = await report(id);
    expect(body.dry_run).toBe(true);
    expect(body.items).toContainEqual(
      expect.objectContaining({
        collector: 'quota_claims',
        resource: 'org-a/db_bbbbbbbbbbbb',
        action: 'would delete',
      }),
    );
    expect(body.items.some((item) => item.resource.includes('db_999999999999'))).toBe(false);
    expect(await claims()).toEqual(['db_999999999999', 'db_bbbbbbbbbbbb']);

    const list = await app.call('GET', '/v1/gc/reports?per_page=5', { token: admin.token });
    expect(list.status).toBe(200);
    const listed = await enveloped<{ id: string; items: number }[]>(list);
    expect(listed.data).toEqual([expect.objectContaining({ id, items: body.items.length })]);
    expect(listed.meta).toMatchObject({ total: 1, page: 1, per_page: 5 });
  });

  it('deletes in a real run and never what a protected resource holds', async () => {
    const id = await collect(false);

    const body = await report(id);
    expect(body.dry_run).toBe(false);
    expect(body.items).toContainEqual(
      expect.objectContaining({
        collector: 'quota_claims',
        resource: 'org-a/db_bbbbbbbbbbbb',
        action: 'deleted',
      }),
    );
    expect(await claims()).toEqual(['db_999999999999']);
    const samples = await app.database.kysely.selectFrom('usage_samples').select('resource_id').execute();
    expect(samples).toEqual([{ resource_id: 'db_999999999999' }]);
    await expect(app.store.get(DATABASE, 'org-a', 'db-999999999999')).resolves.toBeDefined();
  });

  it('refuses anyone but a platform administrator', async () => {
    const list = await app.call('GET', '/v1/gc/reports', { token: member.token });
    expect(list.status).toBe(403);
    const [first] = (
      await enveloped<{ id: string }[]>(await app.call('GET', '/v1/gc/reports', { token: admin.token }))
    ).data;
    const one = await app.call('GET', `/v1/gc/reports/${first!.id}`, { token: member.token });
    expect(one.status).toBe(403);
    expect((await app.call('GET', '/v1/gc/reports')).status).toBe(401);
    expect((await app.call('GET', '/v1/gc/reports/nope', { token: admin.token })).status).toBe(404);
  });
});
