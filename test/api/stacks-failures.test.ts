/**
 * Stacks when things go wrong, through the REST API on the embedded platform: a bootstrap job
 * that fails and a later apply that picks up from what was applied, a reference that cannot be
 * resolved, jobs recorded rather than run, a delete that keeps the resources, applies queued
 * with `force`, a read-only key, and bodies and ids that must not get through.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { DATABASE, type Database } from '../../crds/data-services.js';
import { STACK } from '../../crds/stacks.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import {
  aDatabase,
  aGeneratedPassword,
  aShellJob,
  aStackTemplate,
  aWebappService,
} from '../fixtures/stacks.js';
import { objectNameOf } from '../../crds/ids.js';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
}

const root = path.resolve(import.meta.dirname, '../..');
const CHARTS_DIR = path.join(root, 'test/fixtures/charts');

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform({
    clock: systemClock,
    env: {
      CLOUDPLANE_LOCAL_JOBS: 'enabled',
      CLOUDPLANE_STACK_CHARTS_DIR: CHARTS_DIR,
      CLOUDPLANE_REDIS_PORTS: '27470-27480',
    },
  });
  owner = await registerAndSignIn(app);
}, 60_000);
afterAll(async () => app?.close(), 60_000);

async function callOn(
  platform: TestPlatform,
  method: string,
  route: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await platform.call(method, route, { body, headers });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (method: string, route: string, body?: unknown) =>
  callOn(app, method, route, body, bearer(owner.token));
const data = (answer: Answer) => answer.body.data as Json;
const errorOf = (answer: Answer) => answer.body.error as { code: string; message: string };

/** Creates a stack and answers its id. */
async function createStack(name: string, template: unknown, on = call): Promise<string> {
  const created = await on('POST', '/v1/stacks', { name, tenant: 'acme', template });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return data(created).id as string;
}

/** Starts an apply and answers the execution id. */
async function apply(stackId: string, body: Json = {}, on = call): Promise<string> {
  const started = await on('POST', `/v1/stacks/${stackId}/apply`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return data(started).execution_id as string;
}

/** The execution once it completed or failed. */
async function finished(stackId: string, executionId: string, on = call): Promise<Json> {
  return eventually(async () => {
    const execution = data(await on('GET', `/v1/stacks/${stackId}/executions/${executionId}`));
    expect(['completed', 'failed'], JSON.stringify(execution)).toContain(execution.status);
    return execution;
  }, 90_000);
}

/** The stack once its status is `status`. */
async function stackWhen(stackId: string, status: string, on = call): Promise<Json> {
  return eventually(async () => {
    const stack = data(await on('GET', `/v1/stacks/${stackId}`));
    expect(stack.status, JSON.stringify(stack)).toBe(status);
    return stack;
  }, 30_000);
}

function resourceOf(stack: Json, name: string): { type: string; name: string; id: string; status: string } {
  const resources = stack.resources as { type: string; name: string; id: string; status: string }[];
  const found = resources.find((resource) => resource.name === name);
  expect(found, JSON.stringify(resources)).toBeDefined();
  return found!;
}

/** A redis database, a password, a job running `script` and a service after it. */
function jobTemplate(script: string) {
  return aStackTemplate({
    resources: { db: aDatabase('redis') },
    secrets: { admin_password: aGeneratedPassword() },
    bootstrap: { migrate: aShellJob(script, { ADMIN_PASSWORD: '${secrets.admin_password}' }) },
    services: { api: aWebappService(['migrate']) },
    outputs: { api_endpoint: { value: '${services.api.endpoint}' } },
  });
}

describe('a bootstrap job that fails', () => {
  let stackId: string;
  let databaseId: string;

  it('fails the execution, its phase and the stack, naming the job and the exit code, and keeps the database', async () => {
    stackId = await createStack('failing', jobTemplate('echo boom >&2; exit 3'));
    const execution = await finished(stackId, await apply(stackId));

    expect(execution.status, JSON.stringify(execution)).toBe('failed');
    const error = execution.error as string;
    expect(error).toContain('bootstrap.migrate');
    expect(error).toContain('exit code 3');
    const phases = execution.phases as { name: string; status: string }[];
    expect(phases.map((phase) => `${phase.name} ${phase.status}`)).toEqual([
      'infrastructure completed',
      'secrets completed',
      'bootstrap failed',
      'services pending',
    ]);
    const steps = execution.steps as { resource: string; status: string; message: string | null }[];
    expect(steps.find((step) => step.resource === 'bootstrap.migrate')).toMatchObject({
      status: 'failed',
      message: error,
    });
    expect(steps.find((step) => step.resource === 'services.api')?.status).toBe('pending');

    const stack = await stackWhen(stackId, 'failed');
    expect(stack.message).toBe(error);

    const jobs = data(await call('GET', `/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs).toEqual([expect.objectContaining({ name: 'migrate', status: 'failed', exit_code: 3 })]);
    const logs = data(await call('GET', `/v1/stacks/${stackId}/jobs/migrate/logs`)).logs as string;
    expect(logs).toContain('boom');

    // What the infrastructure phase made stays.
    databaseId = resourceOf(stack, 'resources.db').id;
    const database = await call('GET', `/v1/databases/${databaseId}`);
    expect(database.status).toBe(200);
    expect(data(database)).toMatchObject({ engine: 'redis', status: 'available' });
  }, 120_000);

  it('picks up from what was applied once the job is fixed: the same database, the stack active', async () => {
    const replaced = await call('PUT', `/v1/stacks/${stackId}`, { template: jobTemplate('echo fixed') });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    const execution = await finished(stackId, await apply(stackId));
    expect(execution.status, JSON.stringify(execution)).toBe('completed');

    const stack = await stackWhen(stackId, 'active');
    expect(resourceOf(stack, 'resources.db').id).toBe(databaseId);
    expect(stack).toMatchObject({ version: 2, applied_version: 2 });
    const jobs = data(await call('GET', `/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs).toEqual([expect.objectContaining({ name: 'migrate', status: 'succeeded', exit_code: 0 })]);
    const databases = (await app.store.list<Database>(DATABASE)).items.filter(
      (database) => database.spec?.name === 'failing-db',
    );
    expect(databases).toHaveLength(1);
  }, 120_000);
});

it('fails a step whose reference cannot be resolved, naming the reference', async () => {
  const stackId = await createStack(
    'unresolved',
    aStackTemplate({
      resources: { db: aDatabase('mongodb') },
      outputs: { db_url: { value: '${resources.db.connection_string}' } },
    }),
  );
  const execution = await finished(stackId, await apply(stackId));
  expect(execution.status, JSON.stringify(execution)).toBe('failed');
  expect(execution.error).toContain('outputs.db_url');
  expect(execution.error).toContain('resources.db.connection_string');
  const stack = await stackWhen(stackId, 'failed');
  expect(stack.message).toContain('resources.db.connection_string');
}, 60_000);

it('carries the reason a database is refused at apply into its step, the execution and the database', async () => {
  // Within the most one database may have (1024 GB), past the organization's storage quota (500 GB).
  const stackId = await createStack(
    'over-quota',
    aStackTemplate({
      resources: { big: { type: 'database', properties: { engine: 'postgresql', storage_size: '600Gi' } } },
    }),
  );
  const execution = await finished(stackId, await apply(stackId));
  expect(execution.status, JSON.stringify(execution)).toBe('failed');
  const error = execution.error as string;
  expect(error).toMatch(/^resources\.big: quota database_storage_gb exceeded/);
  const steps = execution.steps as { resource: string; status: string; message: string | null }[];
  expect(steps.find((step) => step.resource === 'resources.big')).toMatchObject({
    status: 'failed',
    message: error,
  });
  const refused = (await app.store.list<Database>(DATABASE)).items.find(
    (database) => database.spec?.name === 'over-quota-big',
  )!;
  const database = data(await call('GET', `/v1/databases/${refused.metadata.name.replace(/^db-/, 'db_')}`));
  expect(database).toMatchObject({ status: 'error' });
  expect(error).toContain(database.message as string);
}, 60_000);

describe('without local jobs', () => {
  let embedded: TestPlatform;
  let token: string;
  const callEmbedded = (method: string, route: string, body?: unknown) =>
    callOn(embedded, method, route, body, bearer(token));

  beforeAll(async () => {
    embedded = await startPlatform({
      clock: systemClock,
      env: { CLOUDPLANE_STACK_CHARTS_DIR: CHARTS_DIR },
    });
    token = (await registerAndSignIn(embedded)).token;
  }, 60_000);
  afterAll(async () => embedded?.close(), 60_000);

  it('records the job with the reason and how to run it, and the stack becomes active with the service recorded', async () => {
    const stackId = await createStack(
      'recorded',
      aStackTemplate({
        secrets: { admin_password: aGeneratedPassword() },
        bootstrap: { migrate: aShellJob('echo never', { ADMIN_PASSWORD: '${secrets.admin_password}' }) },
        services: { api: aWebappService(['migrate']) },
      }),
      callEmbedded,
    );
    const execution = await finished(stackId, await apply(stackId, {}, callEmbedded), callEmbedded);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');

    const jobs = data(await callEmbedded('GET', `/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ name: 'migrate', status: 'skipped', exit_code: null });
    expect(jobs[0]!.message).toContain('recorded in the embedded mode');
    expect(jobs[0]!.message).toContain('CLOUDPLANE_LOCAL_JOBS=enabled');

    const stack = await stackWhen(stackId, 'active', callEmbedded);
    expect(resourceOf(stack, 'bootstrap.migrate').status).toBe('skipped');
    expect(resourceOf(stack, 'services.api').status).toBe('recorded');
  }, 60_000);
});

describe('DELETE without destroy_resources', () => {
  it('removes the stack and keeps its database, without an owner, and its secret in the vault', async () => {
    const stackId = await createStack(
      'kept',
      aStackTemplate({
        resources: { db: aDatabase('redis') },
        secrets: { admin_password: aGeneratedPassword() },
      }),
    );
    expect((await finished(stackId, await apply(stackId))).status).toBe('completed');
    const stack = await stackWhen(stackId, 'active');
    const databaseId = resourceOf(stack, 'resources.db').id;
    const secrets = data(await call('GET', `/v1/stacks/${stackId}/secrets`)).secrets as Json[];
    const vaultPath = secrets[0]!.vault_path as string;

    expect((await call('DELETE', `/v1/stacks/${stackId}`)).status).toBe(204);
    expect((await call('GET', `/v1/stacks/${stackId}`)).status).toBe(404);
    await eventually(async () => {
      const { items } = await app.store.list(STACK);
      expect(items.filter((stack) => stack.metadata.name === objectNameOf(stackId))).toEqual([]);
    }, 30_000);

    expect((await call('GET', `/v1/databases/${databaseId}`)).status).toBe(200);
    const database = (await app.store.list<Database>(DATABASE)).items.find(
      (candidate) => candidate.spec?.name === 'kept-db',
    );
    expect(database?.metadata.deletionTimestamp).toBeUndefined();
    expect(database?.metadata.ownerReferences ?? []).toEqual([]);
    const secret = await call('GET', `/api/v1/vault/managed/secret/${vaultPath}`);
    expect(secret.status, JSON.stringify(secret.body)).toBe(200);
    expect(((secret.body.data as Json).data as Json).value).toHaveLength(24);
  }, 90_000);
});

describe('apply with force', () => {
  let stackId: string;

  beforeAll(async () => {
    stackId = await createStack(
      'forced',
      aStackTemplate({ bootstrap: { slow: aShellJob('sleep 2; echo slept') } }),
    );
  });

  it('queues behind the running execution: all complete, one after the other, in the order asked', async () => {
    const first = await apply(stackId);
    const refused = await call('POST', `/v1/stacks/${stackId}/apply`, {});
    expect(refused.status).toBe(409);
    const queued = [
      await apply(stackId, { force: true }),
      await apply(stackId, { force: true }),
      await apply(stackId, { force: true }),
    ];
    const executions = [];
    for (const id of [first, ...queued]) executions.push(await finished(stackId, id));
    expect(executions.map((execution) => execution.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    // Each starts only once the one asked for before it completed.
    for (let index = 1; index < executions.length; index += 1) {
      const previous = executions[index - 1] as { execution_id: string; completed_at: string };
      const current = executions[index] as { execution_id: string; started_at: string };
      expect(
        current.started_at >= previous.completed_at,
        `${current.execution_id} started at ${current.started_at}, before ${previous.execution_id} completed at ${previous.completed_at}`,
      ).toBe(true);
    }
  }, 120_000);

  it('accepts a wrong plan_digest', async () => {
    const stale = await call('POST', `/v1/stacks/${stackId}/apply`, { plan_digest: 'sha256:wrong' });
    expect(stale.status).toBe(409);
    const execution = await finished(
      stackId,
      await apply(stackId, { plan_digest: 'sha256:wrong', force: true }),
    );
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
  }, 60_000);
});

describe('a key with stacks:read only', () => {
  let stackId: string;
  let readKey: string;
  const read = (method: string, route: string, body?: unknown) =>
    callOn(app, method, route, body, { 'x-api-key': readKey });

  beforeAll(async () => {
    stackId = await createStack('readable', aStackTemplate({ secrets: { token: aGeneratedPassword() } }));
    const created = await call('POST', '/v1/auth/api-keys', {
      name: 'stack reader',
      scopes: ['stacks:read'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    readKey = data(created).key as string;
  });

  it.each([
    ['GET', '/v1/stacks'],
    ['GET', '/v1/stacks/{id}'],
    ['GET', '/v1/stacks/{id}/plan'],
  ])('may %s %s', async (method, route) => {
    const answer = await read(method, route.replace('{id}', stackId));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });

  it.each<[string, string, unknown]>([
    ['POST', '/v1/stacks', { name: 'nope', tenant: 'acme', template: aStackTemplate({}) }],
    ['PUT', '/v1/stacks/{id}', { template: aStackTemplate({}) }],
    ['DELETE', '/v1/stacks/{id}', undefined],
    ['POST', '/v1/stacks/{id}/apply', {}],
    ['POST', '/v1/stacks/{id}/destroy', {}],
  ])('gets 403 on %s %s', async (method, route, body) => {
    const answer = await read(method, route.replace('{id}', stackId), body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(403);
    expect((await call('GET', `/v1/stacks/${stackId}`)).status).toBe(200);
  });
});

describe('body hardening', () => {
  it.each<[string, unknown]>([
    ['a null template', { name: 'x', tenant: 'acme', template: null }],
    ['an array template', { name: 'x', tenant: 'acme', template: [] }],
    ['a string template', { name: 'x', tenant: 'acme', template: 'resources: {}' }],
    ['an unknown top-level field', { name: 'x', tenant: 'acme', template: {}, owner: 'me' }],
  ])('answers 400 to a create with %s', async (_case, body) => {
    const answer = await call('POST', '/v1/stacks', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).code).toBeDefined();
  });

  it.each([
    ['GET', '/v1/stacks/..%2Fx'],
    ['GET', '/v1/stacks/%2E%2E%2Fx/plan'],
    ['PUT', '/v1/stacks/..%2Fx'],
    ['DELETE', '/v1/stacks/..%2Fx'],
    ['POST', '/v1/stacks/..%2Fx/apply'],
    ['GET', '/v1/stacks/..%2Fx/jobs/migrate/logs'],
  ])('answers 400 or 404, never 500, to %s %s', async (method, route) => {
    const body = method === 'PUT' ? { template: aStackTemplate({}) } : method === 'POST' ? {} : undefined;
    const answer = await call(method, route, body);
    expect([400, 404], JSON.stringify(answer.body)).toContain(answer.status);
  });
});
