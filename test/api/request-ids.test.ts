import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generalError } from '../fixtures/api-bodies.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

let app: TestApp;
const logs = capturedLogger();

beforeAll(async () => {
  app = await startTestApp({ routes: ECHO_ROUTES, logger: logs.logger });
});
afterAll(async () => {
  await app.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('echoes a sane X-Request-Id from the client', async () => {
    const response = await app.request('/api/v1/vpcs/echoes', {
      headers: { 'x-request-id': 'client-42.retry_1' },
    });
    expect(response.headers.get('x-request-id')).toBe('client-42.retry_1');
  });

  it('generates a uuid when the client sends none', async () => {
    const response = await app.request('/api/v1/vpcs/echoes');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it.each([
    ['one with spaces', 'two words'],
    ['one too long', 'a'.repeat(129)],
    ['one with markup', '<script>'],
  ])('replaces %s with a generated uuid', async (_case, offered) => {
    const response = await app.request('/api/v1/vpcs/echoes', { headers: { 'x-request-id': offered } });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('puts the request id in the error body', async () => {
    const response = await app.request('/api/v1/vpcs/echoes/vpc-1', {
      method: 'PATCH',
      headers: { 'x-request-id': 'patch-1' },
    });
    expect((await generalError(response)).meta.request_id).toBe('patch-1');
  });

  it('logs one access line with the request id, route template, status and duration, and no headers', async () => {
    await app.request('/api/v1/vpcs/echoes/vpc-9?token=secret-value', {
      headers: { 'x-request-id': 'logged-1', authorization: 'Bearer very-secret', 'x-api-key': 'key-secret' },
    });
    const lines = logs.lines.filter((line) => (line.req as { id?: string } | undefined)?.id === 'logged-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'GET /api/v1/vpcs/echoes/:id 200',
      req: { id: 'logged-1', method: 'GET', path: '/api/v1/vpcs/echoes/vpc-9' },
      res: { statusCode: 200 },
      route: '/api/v1/vpcs/echoes/:id',
      responseTime: expect.any(Number),
    });
    const text = JSON.stringify(lines);
    expect(text).not.toContain('very-secret');
    expect(text).not.toContain('key-secret');
    expect(text).not.toContain('secret-value');
  });
});
