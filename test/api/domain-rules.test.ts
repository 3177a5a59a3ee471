/**
 * The 400/422 rule, family by family: a request that breaks its schema (a type, a missing or an
 * unknown field) is a 400, one that breaks a rule of the domain (an unknown tier, engine, region,
 * period or site, an invalid cron, a value past a limit) is a 422; both name the field, and
 * neither writes anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  // Nothing needs to run: every answer here is the facade's, before any controller acts.
  app = await startPlatform({ controllers: false });
  owner = await registerAndSignIn(app);
});
afterAll(async () => app?.close());

type Case = [description: string, method: string, path: string, body: unknown, field: string];

async function answer(method: string, path: string, body: unknown) {
  const response = await app.call(method, path, { token: owner.token, body });
  return { status: response.status, text: await response.text() };
}

/** Objects in the store, to see that a refusal wrote nothing. */
async function objectCount(): Promise<number> {
  let count = 0;
  for (const kind of app.store.kinds()) count += (await app.store.list(kind, {})).items.length;
  return count;
}

const DOMAIN_RULES: Case[] = [
  [
    'an unknown streaming tier',
    'POST',
    '/v1/streaming/clusters',
    { name: 'a', region: 'us-east-1', tier: 'bogus' },
    'tier',
  ],
  ['an unknown streaming tier in a filter', 'GET', '/v1/streaming/clusters?tier=bogus', undefined, 'tier'],
  [
    'a region the platform does not have',
    'POST',
    '/v1/streaming/clusters',
    { name: 'a', region: 'mars-1' },
    'region',
  ],
  [
    'partitions past the limit',
    'POST',
    '/v1/streaming/clusters/esc_probe/topics',
    { name: 't', partitions: 200_000 },
    'partitions',
  ],
  [
    'replicas past the limit',
    'POST',
    '/v1/streaming/clusters/esc_probe/topics',
    { name: 't', replicas: 1000 },
    'replicas',
  ],
  ['an unknown usage period', 'GET', '/api/v1/usage/costs?period=bogus', undefined, 'period'],
  ['a month that does not exist', 'GET', '/api/v1/usage/costs?period=2026-13', undefined, 'period'],
  ['an unknown database engine', 'POST', '/v1/databases', { name: 'd', engine: 'oracle' }, 'engine'],
  ['an unknown database engine in a filter', 'GET', '/v1/databases?engine=oracle', undefined, 'engine'],
  [
    'storage past the limit',
    'POST',
    '/v1/databases',
    { name: 'd', engine: 'postgresql', storage_gb: 100_000 },
    'storage_gb',
  ],
  [
    'no storage at all',
    'POST',
    '/v1/databases',
    { name: 'd', engine: 'postgresql', storage_gb: 0 },
    'storage_gb',
  ],
  [
    'memory past the limit',
    'POST',
    '/v1/databases',
    { name: 'd', engine: 'redis', memory_mb: 2_000_000 },
    'memory_mb',
  ],
  ['a resize past the limit', 'PATCH', '/v1/databases/db_probe', { storage_gb: 100_000 }, 'storage_gb'],
  [
    'an invalid cron',
    'PUT',
    '/v1/databases/db_probe/backup-schedule',
    { cron: '61 * * * *', retention_days: 7 },
    'cron',
  ],
  [
    'a cron of four fields',
    'PUT',
    '/v1/databases/db_probe/backup-schedule',
    { cron: '0 * * *', retention_days: 7 },
    'cron',
  ],
  [
    'a schedule retention past the limit',
    'PUT',
    '/v1/databases/db_probe/backup-schedule',
    { cron: '0 3 * * *', retention_days: 99_999 },
    'retention_days',
  ],
  ['a share past the limit', 'POST', '/v1/nfs-shares', { name: 's', size_gb: 100_000 }, 'size_gb'],
  [
    'a backup retention past the limit',
    'POST',
    '/v1/backups',
    { resource_id: 'db_probe', retention_days: 99_999 },
    'retention_days',
  ],
  [
    'an unknown integration type',
    'POST',
    '/api/v1/integrations',
    { name: 'i', type: 'bogus', credentials: {} },
    'type',
  ],
  ['an unknown integration type in a filter', 'GET', '/api/v1/integrations?type=bogus', undefined, 'type'],
  [
    'an unknown monitor site',
    'POST',
    '/api/v1/integrations/monitor',
    { name: 'm', api_key: 'k', site: 'nowhere.example' },
    'site',
  ],
];

const SCHEMA_BREAKS: Case[] = [
  [
    'a tier that is not a string',
    'POST',
    '/v1/streaming/clusters',
    { name: 'a', region: 'us-east-1', tier: 5 },
    'tier',
  ],
  ['a missing region', 'POST', '/v1/streaming/clusters', { name: 'a' }, 'region'],
  [
    'an unknown field beside an unknown tier',
    'POST',
    '/v1/streaming/clusters',
    { name: 'a', region: 'us-east-1', tier: 'bogus', size: 3 },
    'size',
  ],
  [
    'partitions that are not a number',
    'POST',
    '/v1/streaming/clusters/esc_probe/topics',
    { name: 't', partitions: 'many' },
    'partitions',
  ],
  ['a missing engine', 'POST', '/v1/databases', { name: 'd' }, 'engine'],
  [
    'storage that is not whole',
    'POST',
    '/v1/databases',
    { name: 'd', engine: 'postgresql', storage_gb: 1.5 },
    'storage_gb',
  ],
  [
    'a cron that is not a string',
    'PUT',
    '/v1/databases/db_probe/backup-schedule',
    { cron: 5, retention_days: 7 },
    'cron',
  ],
  ['a share without a size', 'POST', '/v1/nfs-shares', { name: 's' }, 'size_gb'],
  [
    'a monitor site that is not a string',
    'POST',
    '/api/v1/integrations/monitor',
    { name: 'm', api_key: 'k', site: ['eu'] },
    'site',
  ],
];

describe('the 400/422 rule', () => {
  it.each(DOMAIN_RULES)(
    'answers %s with 422 naming the field, writing nothing',
    async (_case, method, path, body, field) => {
      const before = await objectCount();
      const { status, text } = await answer(method, path, body);
      expect({ status, text }).toMatchObject({ status: 422 });
      expect(text).toContain(field);
      expect(await objectCount()).toBe(before);
    },
  );

  it.each(SCHEMA_BREAKS)(
    'answers %s with 400 naming the field, writing nothing',
    async (_case, method, path, body, field) => {
      const before = await objectCount();
      const { status, text } = await answer(method, path, body);
      expect({ status, text }).toMatchObject({ status: 400 });
      expect(text).toContain(field);
      expect(await objectCount()).toBe(before);
    },
  );

  it('lists every problem of a request that breaks both, as a 400', async () => {
    const { status, text } = await answer('POST', '/v1/streaming/clusters', {
      region: 'us-east-1',
      tier: 'bogus',
    });
    expect(status).toBe(400);
    const fields = (JSON.parse(text) as { error: { details: { fields: { field: string; rule: string }[] } } })
      .error.details.fields;
    expect(fields.map((problem) => [problem.field, problem.rule])).toEqual(
      expect.arrayContaining([
        ['name', 'required'],
        ['tier', 'enum'],
      ]),
    );
  });

  it('marks every domain rule in /openapi.json, where clients see which refusals are 422', async () => {
    const document = JSON.stringify(await (await app.call('GET', '/openapi.json')).json());
    expect(document.match(/"x-domain-rule":true/g)?.length).toBeGreaterThanOrEqual(10);
  });
});
