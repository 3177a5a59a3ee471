/**
 * Stacks through the REST API on the embedded platform: a template with a PostgreSQL database, a
 * generated password, a bootstrap job (run as a local process) that uses both, a helm service
 * rendered with `helm template`, and outputs — applied phase by phase, planned again after a
 * template change, destroyed, deleted.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { DATABASE, type Database } from '../../crds/data-services.js';
import { STACK, type Stack } from '../../crds/stacks.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;

const root = path.resolve(import.meta.dirname, '../..');
const helm = path.join(root, '.tools/bin/helm');
const hasHelm = fs.existsSync(helm);
if (!hasHelm)
  console.warn(
    'stacks API: .tools/bin/helm is missing (npm run tools); services are recorded without a manifest',
  );

let app: TestPlatform;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  app = await startPlatform({
    clock: systemClock,
    env: {
      CLOUDPLANE_LOCAL_JOBS: 'enabled',
      CLOUDPLANE_STACK_CHARTS_DIR: path.join(root, 'test/fixtures/charts'),
      CLOUDPLANE_REDIS_PORTS: '27430-27440',
    },
  });
  owner = await registerAndSignIn(app);
  stranger = await registerAndSignIn(app, 'Stranger');
}, 60_000);
afterAll(async () => app?.close(), 60_000);

async function call(method: string, route: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, route, { token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}
const data = (answer: { body: Json }) => answer.body.data as Json;
const errorOf = (answer: { body: Json }) =>
  answer.body.error as { code: string; message: string; details: Json };

/** A job that connects with the connection string and stores the generated password's length. */
const MIGRATE_SCRIPT = [
  `const pg = require(${JSON.stringify(path.join(root, 'node_modules/pg'))});`,
  'const client = new pg.Client({ connectionString: process.env.DATABASE_URL });',
  'client.connect().then(async () => {',
  '  await client.query("create table if not exists admins (password_length int)");',
  '  await client.query("insert into admins values ($1)", [process.env.ADMIN_PASSWORD.length]);',
  '  console.log("migrated; variables: " + Object.keys(process.env).sort().join(","));',
  '  await client.end();',
  '}).catch((error) => { console.error(error.message); process.exit(4); });',
].join('\n');

function template(overrides: { replicas?: number; extraOutput?: boolean; storage?: string } = {}): Json {
  return {
    version: '1.0.0',
    name: 'shop',
    resources: {
      db: {
        type: 'database',
        properties: { engine: 'postgresql', version: '15', storage_size: overrides.storage ?? '2Gi' },
      },
    },
    secrets: {
      admin_password: { type: 'generated', generator_type: 'password', length: 24 },
    },
    bootstrap: {
      migrate: {
        image: 'node:20',
        command: [process.execPath, '-e', MIGRATE_SCRIPT],
        secrets: {
          DATABASE_URL: '${resources.db.connection_string}',
          ADMIN_PASSWORD: '${secrets.admin_password.value}',
        },
        timeout: '60s',
      },
    },
    services: {
      api: {
        type: 'helm',
        depends_on: ['migrate'],
        properties: {
          chart: 'webapp',
          version: '0.1.0',
          values: { replicas: overrides.replicas ?? 1, database: { host: '${resources.db.endpoint}' } },
        },
      },
    },
    outputs: {
      db_url: { value: '${resources.db.connection_string}' },
      api_endpoint: { value: '${services.api.endpoint}' },
      ...(overrides.extraOutput ? { db_endpoint: { value: '${resources.db.endpoint}' } } : {}),
    },
  };
}

/** Templates asking for what the data services would refuse: 422s naming the property. */
function offerProblems(): [string, Json, number, string][] {
  const withResource = (resource: Json): Json => {
    const base = template();
    return { ...base, resources: { ...(base.resources as Json), extra: resource } };
  };
  return [
    [
      'a PostgreSQL version the platform does not offer',
      withResource({ type: 'database', properties: { engine: 'postgresql', version: '9.1' } }),
      422,
      'template.resources.extra.properties.version',
    ],
    [
      'an engine the platform does not offer',
      withResource({ type: 'database', properties: { engine: 'oracle' } }),
      422,
      'template.resources.extra.properties.engine',
    ],
    [
      'a cache engine that is not an in-memory one',
      withResource({ type: 'cache', properties: { engine: 'postgresql' } }),
      422,
      'template.resources.extra.properties.engine',
    ],
    [
      'storage past the most a database may have',
      withResource({ type: 'database', properties: { engine: 'mariadb', storage_size: '5000Gi' } }),
      422,
      'template.resources.extra.properties.storage_size',
    ],
    [
      'a cache smaller than the least memory',
      withResource({ type: 'cache', properties: { memory: '8Mi' } }),
      422,
      'template.resources.extra.properties.memory',
    ],
  ];
}

async function finished(stackId: string, executionId: string): Promise<Json> {
  return eventually(async () => {
    const execution = data(await call('GET', `/v1/stacks/${stackId}/executions/${executionId}`));
    expect(['completed', 'failed'], JSON.stringify(execution)).toContain(execution.status);
    return execution;
  }, 90_000);
}

async function vaultValue(vaultPath: string): Promise<string> {
  const answer = await call('GET', `/api/v1/vault/managed/secret/${vaultPath}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return ((answer.body.data as Json).data as Json).value as string;
}

describe('a stack from create to delete', () => {
  let stackId: string;
  let firstDigest: string;

  it('creates a pending stack at version 1 and plans every entry as a create', async () => {
    const created = await call('POST', '/v1/stacks', { name: 'shop', tenant: 'acme', template: template() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(data(created)).toMatchObject({ name: 'shop', status: 'pending', version: 1 });
    stackId = data(created).id as string;
    expect(stackId).toMatch(/^stk_[0-9a-f]{12}$/);

    const plan = data(await call('GET', `/v1/stacks/${stackId}/plan`));
    expect(plan.summary).toMatchObject({ create: 6, update: 0, replace: 0, delete: 0 });
    const changes = plan.changes as { type: string; resource: string; details: Json }[];
    expect(changes.map((change) => `${change.type} ${change.resource}`)).toEqual([
      'create resources.db',
      'create secrets.admin_password',
      'create bootstrap.migrate',
      'create services.api',
      'create outputs.api_endpoint',
      'create outputs.db_url',
    ]);
    expect(JSON.stringify(plan)).toContain('(sensitive)');
    firstDigest = plan.plan_digest as string;
    expect(firstDigest).toMatch(/^sha256:/);
  });

  it('applies in four phases to active, with a real database, vault secrets, the job run and the service recorded', async () => {
    const started = await call('POST', `/v1/stacks/${stackId}/apply`, { plan_digest: firstDigest });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(data(started)).toMatchObject({ status: 'running', phase: 'infrastructure' });
    const executionId = data(started).execution_id as string;
    expect(executionId).toMatch(/^exec_[0-9a-f]{12}$/);

    const again = await call('POST', `/v1/stacks/${stackId}/apply`, {});
    expect(again.status).toBe(409);
    expect(errorOf(again).message).toContain('running');

    const execution = await finished(stackId, executionId);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
    const phases = execution.phases as {
      name: string;
      status: string;
      started_at: string;
      completed_at: string;
    }[];
    expect(phases.map((phase) => phase.name)).toEqual(['infrastructure', 'secrets', 'bootstrap', 'services']);
    expect(phases.every((phase) => phase.status === 'completed')).toBe(true);
    for (let index = 1; index < phases.length; index += 1) {
      expect(phases[index]!.started_at >= phases[index - 1]!.completed_at).toBe(true);
    }

    const stack = await eventually(async () => {
      const current = data(await call('GET', `/v1/stacks/${stackId}`));
      expect(current.status).toBe('active');
      return current;
    });
    expect(stack).toMatchObject({ version: 1, applied_version: 1, pending_changes: false });
    const resources = stack.resources as { type: string; name: string; id: string; status: string }[];
    expect(resources.map((resource) => `${resource.type} ${resource.name}`).sort()).toEqual([
      'database resources.db',
      'job bootstrap.migrate',
      'secret secrets.admin_password',
      'service services.api',
    ]);
    const outputs = stack.outputs as Json;
    expect(outputs.db_url).toBe('********');
    expect(outputs.api_endpoint).toMatch(/\.svc\.cluster\.local$/);

    // The database is a real one, made by the data-services controllers.
    const databaseId = resources.find((resource) => resource.type === 'database')!.id;
    const database = data(await call('GET', `/v1/databases/${databaseId}`));
    expect(database).toMatchObject({ engine: 'postgresql', status: 'available', realization: 'real' });

    // The generated secret lives in the vault; the API gives its path only.
    const secrets = data(await call('GET', `/v1/stacks/${stackId}/secrets`)).secrets as Json[];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).toMatchObject({
      name: 'admin_password',
      type: 'generated',
      vault_path: `stacks/${stackId}/secrets/admin_password`,
    });
    const password = await vaultValue(secrets[0]!.vault_path as string);
    expect(password).toHaveLength(24);

    // The sensitive output is in the vault too; the job really wrote with it.
    const outputList = (data(await call('GET', `/v1/stacks/${stackId}/outputs`)).outputs as Json) ?? {};
    expect(outputList.db_url).toEqual({
      value: '********',
      sensitive: true,
      vault_path: `stacks/${stackId}/outputs/db_url`,
    });
    const connectionString = await vaultValue(`stacks/${stackId}/outputs/db_url`);
    const client = new pg.Client({ connectionString });
    await client.connect();
    const rows = (await client.query('select password_length from admins')).rows;
    await client.end();
    expect(rows).toEqual([{ password_length: 24 }]);

    const jobs = data(await call('GET', `/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs).toEqual([expect.objectContaining({ name: 'migrate', status: 'succeeded', exit_code: 0 })]);
    const logs = data(await call('GET', `/v1/stacks/${stackId}/jobs/migrate/logs`)).logs as string;
    // The job saw only the variables it was given.
    expect(logs).toContain('migrated; variables: ADMIN_PASSWORD,DATABASE_URL');

    const everything = JSON.stringify([stack, outputList, secrets, jobs]);
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(connectionString);
    expect(JSON.stringify(app.logLines)).not.toContain(password);
  }, 120_000);

  it('replaces the template without applying it and plans the update with old and new values', async () => {
    const replaced = await call('PUT', `/v1/stacks/${stackId}`, {
      template: template({ replicas: 3, extraOutput: true }),
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(data(replaced)).toMatchObject({
      id: stackId,
      status: 'pending',
      version: 2,
      pending_changes: true,
    });

    const stack = await eventually(async () => {
      const current = data(await call('GET', `/v1/stacks/${stackId}`));
      expect(current.status).toBe('pending');
      return current;
    });
    expect(stack).toMatchObject({ version: 2, applied_version: 1 });

    const plan = data(await call('GET', `/v1/stacks/${stackId}/plan`));
    const changes = plan.changes as { type: string; resource: string; details: Json }[];
    expect(changes).toContainEqual({
      type: 'update',
      resource: 'services.api',
      details: { 'properties.values.replicas': { old: 1, new: 3 } },
    });
    expect(changes.find((change) => change.resource === 'outputs.db_endpoint')?.type).toBe('create');
    expect(plan.summary).toMatchObject({ create: 1, update: 1, delete: 0 });

    const stale = await call('POST', `/v1/stacks/${stackId}/apply`, { plan_digest: firstDigest });
    expect(stale.status).toBe(409);
    expect(errorOf(stale).message).toContain('plan is stale');

    const dryRun = await call('POST', `/v1/stacks/${stackId}/apply`, { dry_run: true });
    expect(dryRun.status).toBe(200);
    expect((data(dryRun).plan as Json).plan_digest).toBe(plan.plan_digest);

    const applied = await call('POST', `/v1/stacks/${stackId}/apply`, { plan_digest: plan.plan_digest });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const execution = await finished(stackId, data(applied).execution_id as string);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
    const steps = execution.steps as { resource: string; message: string | null }[];
    expect(steps.find((step) => step.resource === 'bootstrap.migrate')?.message).toContain('unchanged');
    const outputs = data(await call('GET', `/v1/stacks/${stackId}/outputs`)).outputs as Json;
    expect((outputs.db_endpoint as Json).value).toMatch(/^127\.0\.0\.1:\d+$/);
    const after = data(await call('GET', `/v1/stacks/${stackId}/plan`));
    expect(after.changes).toEqual([]);
  }, 120_000);

  it('replaces a database that must shrink, and runs again the job that uses it', async () => {
    const before = data(await call('GET', `/v1/stacks/${stackId}`));
    const oldId = (before.resources as { type: string; id: string }[]).find((r) => r.type === 'database')!.id;
    const smaller = template({ replicas: 3, extraOutput: true, storage: '1Gi' });
    expect((await call('PUT', `/v1/stacks/${stackId}`, { template: smaller })).status).toBe(200);
    const plan = data(await call('GET', `/v1/stacks/${stackId}/plan`));
    const changes = plan.changes as { type: string; resource: string; details: Json }[];
    expect(changes.find((change) => change.resource === 'resources.db')).toMatchObject({
      type: 'replace',
      details: { 'properties.storage_size': { old: '2Gi', new: '1Gi' } },
    });

    const applied = await call('POST', `/v1/stacks/${stackId}/apply`, { plan_digest: plan.plan_digest });
    const execution = await finished(stackId, data(applied).execution_id as string);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
    const after = data(await call('GET', `/v1/stacks/${stackId}`));
    const newId = (after.resources as { type: string; id: string }[]).find((r) => r.type === 'database')!.id;
    expect(newId).not.toBe(oldId);
    await eventually(
      async () => expect((await call('GET', `/v1/databases/${oldId}`)).status).toBe(404),
      30_000,
    );
    const steps = execution.steps as { resource: string; message: string | null }[];
    expect(steps.find((step) => step.resource === 'bootstrap.migrate')?.message ?? '').not.toContain(
      'unchanged',
    );
    const jobs = data(await call('GET', `/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs[0]).toMatchObject({ status: 'succeeded', execution_id: data(applied).execution_id });
  }, 120_000);

  it('lists stacks by status and tenant, and hides them from another organization', async () => {
    const active = await call('GET', '/v1/stacks?status=active&tenant=acme');
    expect(active.status).toBe(200);
    expect((active.body.data as Json[]).map((stack) => stack.id)).toEqual([stackId]);
    expect(active.body.meta).toMatchObject({ total: 1, page: 1, per_page: 20 });
    expect((await call('GET', '/v1/stacks?tenant=other')).body.data as Json[]).toEqual([]);
    expect((await call('GET', '/v1/stacks?status=failed')).body.data as Json[]).toEqual([]);

    expect((await call('GET', `/v1/stacks/${stackId}`, undefined, stranger.token)).status).toBe(404);
    expect((await call('GET', `/v1/stacks/${stackId}/plan`, undefined, stranger.token)).status).toBe(404);
    expect((await call('POST', `/v1/stacks/${stackId}/apply`, {}, stranger.token)).status).toBe(404);
  });

  it('destroys in reverse order and leaves nothing applied', async () => {
    const started = await call('POST', `/v1/stacks/${stackId}/destroy`, {});
    expect(started.status).toBe(200);
    expect(data(started)).toMatchObject({ status: 'running', phase: 'services' });
    const execution = await finished(stackId, data(started).execution_id as string);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
    const steps = (execution.steps as { resource: string }[]).map((step) => step.resource);
    expect(steps.indexOf('services.api')).toBeLessThan(steps.indexOf('bootstrap.migrate'));
    expect(steps.indexOf('bootstrap.migrate')).toBeLessThan(steps.indexOf('secrets.admin_password'));
    expect(steps.indexOf('secrets.admin_password')).toBeLessThan(steps.indexOf('resources.db'));

    const stack = await eventually(async () => {
      const current = data(await call('GET', `/v1/stacks/${stackId}`));
      expect(current.status).toBe('pending');
      return current;
    });
    expect(stack.resources).toEqual([]);
    expect(stack.outputs).toEqual({});
    expect(
      (await call('GET', `/api/v1/vault/managed/secret/stacks/${stackId}/secrets/admin_password`)).status,
    ).toBe(404);
    expect((await call('GET', `/api/v1/vault/managed/secret/stacks/${stackId}/outputs/db_url`)).status).toBe(
      404,
    );
    const databases = (await app.store.list<Database>(DATABASE)).items.filter((database) =>
      database.metadata.ownerReferences?.some((owner) => owner.kind === 'Stack'),
    );
    expect(databases).toEqual([]);
  }, 120_000);

  it('deletes the stack', async () => {
    expect((await call('DELETE', `/v1/stacks/${stackId}?destroy_resources=true`)).status).toBe(204);
    // Done to the API at once; the controller's cleanup goes on behind it.
    expect((await call('GET', `/v1/stacks/${stackId}`)).status).toBe(404);
    await eventually(async () => {
      expect((await app.store.list<Stack>(STACK)).items).toEqual([]);
    }, 30_000);
  }, 60_000);
});

describe('bad templates', () => {
  const base = () => template();
  it.each([
    ['an unknown section', { ...base(), extras: {} }, 400, 'template.extras'],
    [
      'an unknown resource type',
      { ...base(), resources: { db: { type: 'quantum', properties: {} } } },
      422,
      'template.resources.db.type',
    ],
    [
      'a reference to a name the template does not define',
      { ...base(), outputs: { x: { value: '${resources.nothing.endpoint}' } } },
      422,
      'template.outputs.x.value',
    ],
    [
      'a dependency cycle',
      {
        ...base(),
        services: {
          a: { type: 'helm', depends_on: ['b'], properties: { chart: 'webapp' } },
          b: { type: 'helm', depends_on: ['a'], properties: { chart: 'webapp' } },
        },
        outputs: {},
      },
      422,
      'template.services.',
    ],
    ...offerProblems(),
  ])('refuses %s, naming the path', async (_name, bad, status, pathPrefix) => {
    const answer = await call('POST', '/v1/stacks', {
      name: `bad-${status}-${Math.random()}`.slice(0, 20),
      tenant: 'acme',
      template: bad,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    const error = errorOf(answer);
    expect(error.details.field as string).toMatch(new RegExp(`^${pathPrefix.replace(/\./g, '\\.')}`));
    expect(error.message).toContain(error.details.field as string);
  });

  it('refuses a version the platform does not offer at create, PUT, plan and apply, listing the versions', async () => {
    const asking = (version: string) => {
      const asked = base() as { resources: { db: { properties: Json } } };
      asked.resources.db.properties.version = version;
      return asked;
    };
    const expected = {
      field: 'template.resources.db.properties.version',
      problems: [
        {
          path: 'template.resources.db.properties.version',
          message: 'postgresql version must be one of 14, 15, 16, 17',
        },
      ],
    };
    const refusedCreate = await call('POST', '/v1/stacks', {
      name: 'old-pg',
      tenant: 'acme',
      template: asking('9.1'),
    });
    expect(refusedCreate.status).toBe(422);
    expect(errorOf(refusedCreate).details).toEqual(expected);

    const created = data(
      await call('POST', '/v1/stacks', { name: 'old-pg', tenant: 'acme', template: asking('16') }),
    );
    const refusedPut = await call('PUT', `/v1/stacks/${created.id}`, { template: asking('9.1') });
    expect(refusedPut.status).toBe(422);
    expect(errorOf(refusedPut).details).toEqual(expected);

    // A template written with kubectl is not checked on its way in: plan and apply refuse it.
    const object = (await app.store.list<Stack>(STACK)).items.find((stack) => stack.spec?.name === 'old-pg')!;
    await app.store.update<Stack>(STACK, { ...object, spec: { ...object.spec!, template: asking('9.1') } });
    for (const [method, route] of [
      ['GET', `/v1/stacks/${created.id}/plan`],
      ['POST', `/v1/stacks/${created.id}/apply`],
    ] as const) {
      const refused = await call(method, route, method === 'POST' ? {} : undefined);
      expect(refused.status, route).toBe(422);
      expect(errorOf(refused).details).toEqual(expected);
    }
    expect((await call('DELETE', `/v1/stacks/${created.id}`)).status).toBe(204);
  });

  it('keeps the old template when a PUT is refused', async () => {
    const created = data(
      await call('POST', '/v1/stacks', { name: 'keeps', tenant: 'acme', template: base() }),
    );
    const refused = await call('PUT', `/v1/stacks/${created.id}`, { template: { ...base(), extras: {} } });
    expect(refused.status).toBe(400);
    const stack = data(await call('GET', `/v1/stacks/${created.id}`));
    expect(stack.version).toBe(1);
    expect((await call('DELETE', `/v1/stacks/${created.id}`)).status).toBe(204);
  });
});
