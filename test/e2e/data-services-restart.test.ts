/**
 * What a user's databases do across a crash of the platform: `cloudplane serve` killed with
 * SIGKILL and started again on the same data dir serves every real database again, with its data,
 * at the same endpoint; a database whose process is gone reports degraded until it is back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../fixtures/eventually.js';
import { startServe, type Started } from '../fixtures/serve-process.js';
import { freePort } from '../fixtures/free-port.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const available = fs.existsSync(REDIS_SERVER);
if (!available) console.warn(`SKIPPING the restart suite of managed databases: ${REDIS_SERVER} is missing`);

type Json = Record<string, unknown>;

describe.skipIf(!available)('managed databases across a crash of the platform', () => {
  let dataDir: string;
  let started: Started;
  let token: string;
  // Tokens name the platform's URL, which must stay the same across the restart.
  const env: Record<string, string> = {
    CLOUDPLANE_REDIS_PORTS: '27450-27460',
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
  const databaseOf = async (id: string) => {
    const answer = await call('GET', `/v1/databases/${id}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as Json;
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-restart-'));
    env.PORT = String(await freePort());
    started = await startServe(dataDir, env);
    const account = { email: 'crash@example.com', password: 'a long enough passphrase', name: 'Crash' };
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

  it('serves a redis database again, with its data and endpoint, after SIGKILL and a restart', async () => {
    const created = await call('POST', '/v1/databases', { name: 'cache', engine: 'redis', memory_mb: 32 });
    expect(created.status).toBe(201);
    const id = (created.body.data as Json).id as string;
    const before = await eventually(async () => {
      const database = await databaseOf(id);
      expect(database.status).toBe('available');
      return database;
    }, 30_000);
    const secret = await call('GET', `/api/v1/vault/managed/secret/databases/${id}`);
    const connectionString = ((secret.body.data as Json).data as Json).connection_string as string;
    const client = new Redis(connectionString, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    await client.set('kept', 'across the crash');
    await client.quit();

    started.child.kill('SIGKILL');
    await started.exited;
    started = await startServe(dataDir, env);

    const after = await eventually(async () => {
      const database = await databaseOf(id);
      expect(database.status).toBe('available');
      return database;
    }, 30_000);
    expect(after.endpoint).toEqual(before.endpoint);
    const again = new Redis(connectionString, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await again.connect();
    expect(await again.get('kept')).toBe('across the crash');
    await again.quit();
  }, 90_000);
});
