import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

let app: TestApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('GET /health', () => {
  it('answers 200 healthy with the uptime as a duration and in seconds', async () => {
    app = await startTestApp({
      startedAt: new Date('2026-01-01T00:00:00Z'),
      now: () => new Date('2026-01-01T03:12:05Z'),
    });
    const response = await app.request('/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'healthy',
      uptime: '3h12m5s',
      uptime_seconds: 11525,
      checks: { store: 'ok', database: 'ok' },
    });
  });

  it('answers the probes of one second alike, and the next second with its uptime', async () => {
    let clock = new Date('2026-01-01T00:00:10.100Z');
    app = await startTestApp({ startedAt: new Date('2026-01-01T00:00:00Z'), now: () => clock });
    const first = (await (await app.request('/health')).json()) as Record<string, unknown>;
    clock = new Date('2026-01-01T00:00:10.900Z');
    expect(await (await app.request('/health')).json()).toEqual(first);
    clock = new Date('2026-01-01T00:00:11.000Z');
    expect(await (await app.request('/health')).json()).toEqual({
      ...first,
      uptime: '11s',
      uptime_seconds: 11,
    });
  });

  it('answers 503 unhealthy naming the database when it is closed', async () => {
    app = await startTestApp();
    await app.database.close();
    const response = await app.request('/health');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: 'unhealthy',
      checks: { store: 'ok', database: 'the data-plane database is closed' },
    });
  });

  it('answers probes within a second of a round of checks with that round, then checks again', async () => {
    app = await startTestApp();
    expect((await app.request('/health')).status).toBe(200);
    await app.database.close();
    expect((await app.request('/health')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const response = await app.request('/health');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      checks: { database: 'the data-plane database is closed' },
    });
  });

  it('answers a request whose target is in absolute form, as a proxy would send it', async () => {
    app = await startTestApp();
    const { port } = new URL(app.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.write(
      `GET http://127.0.0.1:${port}/health?verbose=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toContain('"status":"healthy"');
  });

  it('answers 503 naming the store when it is closed', async () => {
    app = await startTestApp();
    await app.store.close();
    const response = await app.request('/health');
    expect(response.status).toBe(503);
    const body = (await response.json()) as { checks: Record<string, string> };
    expect(body.checks.database).toBe('ok');
    expect(body.checks.store).not.toBe('ok');
  });
});

describe('GET /metrics', () => {
  it('exposes request counts by route template, database connections and process metrics', async () => {
    app = await startTestApp({ routes: ECHO_ROUTES });
    await app.request('/api/v1/vpcs/echoes/vpc-123');
    await app.request('/api/v1/vpcs/echoes/vpc-456');
    await app.request('/no/such/route/abc');
    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(app.metrics.registry.contentType);
    const text = await response.text();
    expect(text).toContain(
      'http_requests_total{method="GET",route="/api/v1/vpcs/echoes/:id",status="200"} 2',
    );
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/vpcs\/echoes\/:id",status="200"\} 2/,
    );
    expect(text).toContain('database_connections_active 1');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('vpc-123');
  });
});
