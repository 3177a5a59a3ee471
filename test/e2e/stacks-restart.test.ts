/**
 * A stack's execution across a crash of the platform: `cloudplane serve` killed with SIGKILL
 * while a bootstrap job runs, then started again on the same data dir, resumes the execution
 * from its recorded steps — the job runs, the service follows, and what the infrastructure
 * phase made is not made again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../fixtures/eventually.js';
import { startServe, type Started } from '../fixtures/serve-process.js';
import { aDatabase, aShellJob, aStackTemplate, aWebappService } from '../fixtures/stacks.js';
import { freePort } from '../fixtures/free-port.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const available = fs.existsSync(REDIS_SERVER);
if (!available) console.warn(`SKIPPING the restart suite of stacks: ${REDIS_SERVER} is missing`);

type Json = Record<string, unknown>;
interface Step {
  resource: string;
  status: string;
  started_at: string | null;
}

describe.skipIf(!available)('a stack execution across a crash of the platform', () => {
  let dataDir: string;
  let started: Started;
  let token: string;
  // Tokens name the platform's URL, which must stay the same across the restart.
  const env: Record<string, string> = {
    CLOUDPLANE_LOCAL_JOBS: 'enabled',
    CLOUDPLANE_STACK_CHARTS_DIR: path.resolve('test/fixtures/charts'),
    CLOUDPLANE_REDIS_PORTS: '27490-27499',
    CLOUDPLANE_RATE_LIMIT_PER_SECOND: '100000',
    CLOUDPLANE_RATE_LIMIT_PER_MINUTE: '1000000',
  };

  async function call(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${started.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
  }
  const dataOf = async (route: string) => {
    const answer = await call('GET', route);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as Json;
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-stacks-restart-'));
    env.PORT = String(await freePort());
    started = await startServe(dataDir, env);
    const account = {
      email: 'stacks-crash@example.com',
      password: 'a long enough passphrase',
      name: 'Crash',
    };
    await fetch(`${started.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    const login = await fetch(`${started.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    token = ((await login.json()) as { data: { token: string } }).data.token;
  }, 30_000);
  afterAll(async () => {
    started?.child.kill('SIGTERM');
    await started?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('resumes a half-done apply after SIGKILL: the job runs, the stack is active, the database is not made again', async () => {
    const created = await call('POST', '/v1/stacks', {
      name: 'crash',
      tenant: 'acme',
      template: aStackTemplate({
        resources: { db: aDatabase('redis') },
        bootstrap: { migrate: aShellJob('sleep 3; echo done') },
        services: { api: aWebappService(['migrate']) },
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const stackId = (created.body.data as Json).id as string;
    const applied = await call('POST', `/v1/stacks/${stackId}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const executionRoute = `/v1/stacks/${stackId}/executions/${(applied.body.data as Json).execution_id as string}`;

    const before = await eventually(async () => {
      const execution = await dataOf(executionRoute);
      const steps = execution.steps as Step[];
      expect(steps.find((step) => step.resource === 'bootstrap.migrate')?.status).toBe('running');
      return steps;
    }, 60_000);
    const infrastructure = before.find((step) => step.resource === 'resources.db')!;
    expect(infrastructure.status).toBe('completed');
    const databaseId = await eventually(async () => {
      const resources = (await dataOf(`/v1/stacks/${stackId}`)).resources as { name: string; id: string }[];
      const database = resources.find((resource) => resource.name === 'resources.db');
      expect(database?.id).toBeDefined();
      return database!.id;
    });

    started.child.kill('SIGKILL');
    await started.exited;
    started = await startServe(dataDir, env);

    const execution = await eventually(async () => {
      const current = await dataOf(executionRoute);
      expect(['completed', 'failed'], JSON.stringify(current)).toContain(current.status);
      return current;
    }, 60_000);
    expect(execution.status, JSON.stringify(execution)).toBe('completed');
    const phases = execution.phases as { name: string; status: string }[];
    expect(phases.map((phase) => `${phase.name} ${phase.status}`)).toEqual([
      'infrastructure completed',
      'secrets completed',
      'bootstrap completed',
      'services completed',
    ]);
    const after = (execution.steps as Step[]).find((step) => step.resource === 'resources.db')!;
    expect(after.started_at).toBe(infrastructure.started_at);

    const logs = (await dataOf(`/v1/stacks/${stackId}/jobs/migrate/logs`)).logs as string;
    expect(logs).toContain('done');
    const jobs = (await dataOf(`/v1/stacks/${stackId}/jobs`)).jobs as Json[];
    expect(jobs).toEqual([expect.objectContaining({ name: 'migrate', status: 'succeeded', exit_code: 0 })]);

    const stack = await eventually(async () => {
      const current = await dataOf(`/v1/stacks/${stackId}`);
      expect(current.status).toBe('active');
      return current;
    }, 30_000);
    const resources = stack.resources as { name: string; id: string }[];
    expect(resources.find((resource) => resource.name === 'resources.db')?.id).toBe(databaseId);
    const databases = (await call('GET', '/v1/databases')).body.data as Json[];
    expect(databases.filter((database) => database.name === 'crash-db')).toHaveLength(1);
  }, 150_000);
});
