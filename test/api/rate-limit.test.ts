import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuthenticator } from '../fixtures/bearer-authenticator.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../fixtures/app-dependencies.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

const apps: TestApp[] = [];

async function start(perMinute: number, perSecond = 100, options: TestAppOptions = {}): Promise<TestApp> {
  const app = await startTestApp({
    routes: ECHO_ROUTES,
    authenticator: bearerAuthenticator,
    ...options,
    env: {
      ...options.env,
      CLOUDPLANE_RATE_LIMIT_PER_MINUTE: String(perMinute),
      CLOUDPLANE_RATE_LIMIT_PER_SECOND: String(perSecond),
    },
  });
  apps.push(app);
  return app;
}

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function exhaust(app: TestApp, path: string, count: number, init?: RequestInit): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < count; i++) responses.push(await app.request(path, init));
  return responses;
}

describe('rate limiting', () => {
  it.each([
    ['a success', '/api/v1/vpcs/echoes', 200],
    ['an unknown route', '/nowhere', 404],
    ['a wrong method', '/v1/auth/echo-login', 405],
    ['a missing credential', '/v1/stacks/echoes', 401],
    ['the health probe', '/health', 200],
    ['the metrics scrape', '/metrics', 200],
  ])('sends X-RateLimit-Limit, -Remaining and -Reset with %s', async (_case, path, status) => {
    const app = await start(5);
    const before = Math.floor(Date.now() / 1000);
    const response = await app.request(path);
    expect(response.status).toBe(status);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(4);
    const after = Math.ceil(Date.now() / 1000);
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    // The minute window opened while the request was served, so it resets 60 s after that.
    expect(reset).toBeGreaterThanOrEqual(before + 60);
    expect(reset).toBeLessThanOrEqual(after + 60);
  });

  it('counts down and answers 429 with Retry-After once the minute budget is spent', async () => {
    const app = await start(5);
    const responses = await exhaust(app, '/api/v1/vpcs/echoes', 6);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(responses.map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
      '0',
    ]);
    const refused = responses[5]!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      error: { code: 'rate_limited', message: 'rate limit exceeded', details: { retry_after: retryAfter } },
      meta: { request_id: refused.headers.get('x-request-id') },
    });
  });

  it('answers 429 in the flat style with retry_after under /v1/auth', async () => {
    const app = await start(2);
    const [, , refused] = await exhaust(app, '/v1/auth/echo-me', 3, {
      headers: { authorization: 'Bearer admin' },
    });
    expect(refused!.status).toBe(429);
    expect(await refused!.json()).toEqual({
      error: 'rate_limited',
      message: 'rate limit exceeded',
      retry_after: Number(refused!.headers.get('retry-after')),
    });
  });

  it('keeps a separate budget per credential', async () => {
    const app = await start(2);
    await exhaust(app, '/api/v1/vpcs/echoes', 3);
    const anonymous = await app.request('/api/v1/vpcs/echoes');
    const authenticated = await app.request('/api/v1/vpcs/echoes', {
      headers: { authorization: 'Bearer admin' },
    });
    expect([anonymous.status, authenticated.status]).toEqual([429, 200]);
    expect(authenticated.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it.each([
    ['believes X-Forwarded-For from a trusted proxy: one budget per client', 'loopback', [200, 200]],
    ['ignores X-Forwarded-For by default: every client shares the proxy budget', 'false', [200, 429]],
  ])('%s', async (_case, trust, statuses) => {
    const app = await start(1, 100, {
      env: { CLOUDPLANE_TRUST_PROXY: trust === 'loopback' ? '127.0.0.1' : trust },
    });
    const from = (client: string) =>
      app.request('/api/v1/vpcs/echoes', { headers: { 'x-forwarded-for': client } });
    const first = await from('198.51.100.7');
    const second = await from('198.51.100.8');
    expect([first.status, second.status]).toEqual(statuses);
  });

  it('counts requests with bad credentials against the client address', async () => {
    const app = await start(2);
    const responses = await exhaust(app, '/api/v1/vpcs/echoes', 3, {
      headers: { authorization: 'Bearer forged' },
    });
    expect(responses.map((response) => response.status)).toEqual([401, 401, 429]);
  });

  it('never throttles /health and /metrics, nor counts them', async () => {
    const app = await start(2);
    const probes = [...(await exhaust(app, '/health', 5)), ...(await exhaust(app, '/metrics', 5))];
    expect(new Set(probes.map((response) => response.status))).toEqual(new Set([200]));
    expect((await app.request('/api/v1/vpcs/echoes')).headers.get('x-ratelimit-remaining')).toBe('1');
    await app.request('/api/v1/vpcs/echoes');
    await app.request('/api/v1/vpcs/echoes');
    const probe = await app.request('/health');
    expect(probe.status).toBe(200);
    expect(probe.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('refuses a burst beyond the per-second limit', async () => {
    const app = await start(1000, 3);
    const responses = await Promise.all(Array.from({ length: 10 }, () => app.request('/api/v1/vpcs/echoes')));
    const refused = responses.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(refused[0]!.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});

describeWithPostgres('rate limiting on PostgreSQL', () => {
  let database: TestPostgresDatabase | undefined;

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await database?.drop();
  });

  it('shares the counts between replicas', async () => {
    database = (await createTestPostgresDatabase())!;
    const first = await start(5, 100, { databaseUrl: database.url });
    const second = await start(5, 100, { databaseUrl: database.url });
    const statuses = [
      ...(await exhaust(first, '/api/v1/vpcs/echoes', 3)),
      ...(await exhaust(second, '/api/v1/vpcs/echoes', 2)),
      ...(await exhaust(first, '/api/v1/vpcs/echoes', 1)),
      ...(await exhaust(second, '/api/v1/vpcs/echoes', 1)),
    ].map((response) => response.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('counts down and answers 429 with Retry-After once the minute budget is spent', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(3, 100, { databaseUrl: database.url });
    const before = Math.floor(Date.now() / 1000);
    const responses = await exhaust(app, '/api/v1/vpcs/echoes', 4);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual([
      '2',
      '1',
      '0',
      '0',
    ]);
    expect(new Set(responses.map((response) => response.headers.get('x-ratelimit-limit')))).toEqual(
      new Set(['3']),
    );
    const reset = Number(responses[0]!.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(before + 60);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    const retryAfter = Number(responses[3]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('counts requests that arrive together each once, in order', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(5, 100, { databaseUrl: database.url });
    const responses = await Promise.all(Array.from({ length: 8 }, () => app.request('/api/v1/vpcs/echoes')));
    const allowed = responses.filter((response) => response.status === 200);
    expect(allowed).toHaveLength(5);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(3);
    expect(allowed.map((response) => response.headers.get('x-ratelimit-remaining')).sort()).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
    ]);
  });

  it('refuses a burst beyond the per-second limit', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(1000, 3, { databaseUrl: database.url });
    const responses = await Promise.all(Array.from({ length: 10 }, () => app.request('/api/v1/vpcs/echoes')));
    const refused = responses.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(refused[0]!.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('never throttles /health, nor counts it, and reports the counts there', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(2, 100, { databaseUrl: database.url });
    expect((await app.request('/health')).headers.get('x-ratelimit-remaining')).toBe('2');
    await exhaust(app, '/api/v1/vpcs/echoes', 3);
    const probes = await exhaust(app, '/health', 3);
    expect(probes.map((probe) => [probe.status, probe.headers.get('x-ratelimit-remaining')])).toEqual([
      [200, '0'],
      [200, '0'],
      [200, '0'],
    ]);
  });

  it('sends one statement per request: both windows in one', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(100, 100, { databaseUrl: database.url });
    const sent = async () => {
      const text = await (await app.request('/metrics')).text();
      return Number(/^database_queries_total (\d+)/m.exec(text)![1]);
    };
    const before = await sent();
    await exhaust(app, '/api/v1/vpcs/echoes', 5);
    // Five requests and the second scrape, each read or counted by one statement.
    expect((await sent()) - before).toBe(6);
    const together = await sent();
    await Promise.all(Array.from({ length: 10 }, () => app.request('/api/v1/vpcs/echoes')));
    expect((await sent()) - together).toBeLessThanOrEqual(11);
  });

  it('counts per replica while PostgreSQL cannot count', async () => {
    database = (await createTestPostgresDatabase())!;
    const app = await start(2, 100, { databaseUrl: database.url });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('drop table rate_limit_counts');
    await client.end();
    const responses = await exhaust(app, '/api/v1/vpcs/echoes', 3);
    expect(
      responses.map((response) => [response.status, response.headers.get('x-ratelimit-remaining')]),
    ).toEqual([
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });
});
