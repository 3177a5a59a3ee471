import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatError, generalError } from '../fixtures/api-bodies.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES, INTERNAL_FAILURE_MESSAGE } from '../fixtures/echo-routes.js';

let app: TestApp;
const logs = capturedLogger();

beforeAll(async () => {
  app = await startTestApp({
    routes: ECHO_ROUTES,
    logger: logs.logger,
    env: { CLOUDPLANE_BODY_LIMIT: '2kb' },
  });
});
afterAll(async () => {
  await app.close();
});

const json = { 'content-type': 'application/json' };

describe('unknown routes', () => {
  it.each([
    { path: '/v1/auth/nothing-here', style: 'flat' },
    { path: '/v1/organizations/org_1/nothing', style: 'flat' },
    { path: '/v1/stacks/stk_1/nothing', style: 'general' },
    { path: '/v1/databases', style: 'general' },
    { path: '/api/v1/vpcs/vpc-1/nothing/here', style: 'general' },
    { path: '/api/v1/unknown-area', style: 'general' },
    { path: '/elsewhere', style: 'general' },
  ])('answers 404 for $path in the $style style', async ({ path, style }) => {
    const response = await app.request(path);
    expect(response.status).toBe(404);
    const body = await response.json();
    const message = `no route for GET ${path}`;
    if (style === 'flat') {
      expect(body).toEqual({ error: 'not_found', message });
    } else {
      expect(body).toEqual({
        error: { code: 'not_found', message, details: {} },
        meta: { request_id: response.headers.get('x-request-id') },
      });
    }
  });
});

describe('wrong methods', () => {
  it('answers 405 with Allow listing the methods of the path', async () => {
    const response = await app.request('/api/v1/vpcs/echoes/vpc-1', { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, DELETE, HEAD');
    expect((await generalError(response)).error).toEqual({
      code: 'method_not_allowed',
      message: 'PUT is not allowed here; allowed: GET, DELETE, HEAD',
      details: { allowed: ['GET', 'DELETE', 'HEAD'] },
    });
  });

  it('answers 405 in the flat style under /v1/auth', async () => {
    const response = await app.request('/v1/auth/echo-login');
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({
      error: 'method_not_allowed',
      message: 'GET is not allowed here; allowed: POST',
    });
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const response = await app.request('/api/v1/vpcs/echoes', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('request bodies', () => {
  it('answers 413 payload_too_large when the body exceeds the configured limit', async () => {
    const response = await app.request('/v1/auth/echo-login', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'ada@example.com', password: 'x'.repeat(4096) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: 'payload_too_large',
      message: 'request body exceeds the limit of 2048 bytes',
    });
  });

  it('answers 400 invalid_json naming the parse problem', async () => {
    const response = await app.request('/v1/auth/echo-login', {
      method: 'POST',
      headers: json,
      body: '{"email": ',
    });
    expect(response.status).toBe(400);
    const body = await flatError(response);
    expect(body.error).toBe('invalid_json');
    expect(body.message).toMatch(/^request body is not valid JSON: .*JSON/);
  });

  it('answers 415 unsupported_media_type for a body that is not JSON', async () => {
    const response = await app.request('/v1/auth/echo-login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=ada%40example.com',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: 'unsupported_media_type',
      message: 'request body must be application/json, got application/x-www-form-urlencoded',
    });
  });

  it('accepts a +json media type', async () => {
    const response = await app.request('/v1/auth/echo-login', {
      method: 'POST',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse' }),
    });
    expect(response.status).toBe(200);
  });
});

describe('failures', () => {
  it('answers 500 internal_error without the internal message, and logs the error under the request id', async () => {
    const response = await app.request('/api/v1/vpcs/failure', { headers: { 'x-request-id': 'failure-1' } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: 'internal error', details: {} },
      meta: { request_id: 'failure-1' },
    });
    const line = logs.lines.find((entry) => (entry.req as { id?: string } | undefined)?.id === 'failure-1');
    expect(line).toMatchObject({
      level: 50,
      route: '/api/v1/vpcs/failure',
      err: { message: INTERNAL_FAILURE_MESSAGE },
    });
  });

  it.each([
    { reason: 'NotFound', status: 404, code: 'not_found', message: 'Vpc "vpc-1" not found' },
    { reason: 'AlreadyExists', status: 409, code: 'conflict', message: 'Vpc "vpc-1" already exists' },
    {
      reason: 'Conflict',
      status: 409,
      code: 'conflict',
      message: 'Vpc "vpc-1" was changed by another request; read it again and retry',
    },
    { reason: 'Invalid', status: 422, code: 'validation_failed' },
    { reason: 'BadRequest', status: 400, code: 'invalid_request' },
    { reason: 'Expired', status: 410, code: 'gone' },
    { reason: 'Gone', status: 410, code: 'gone' },
    { reason: 'TooManyRequests', status: 503, code: 'service_unavailable' },
    { reason: 'ServiceUnavailable', status: 503, code: 'service_unavailable' },
    { reason: 'Forbidden', status: 500, code: 'internal_error', message: 'internal error' },
    { reason: 'Unauthorized', status: 500, code: 'internal_error', message: 'internal error' },
    { reason: 'InternalError', status: 500, code: 'internal_error', message: 'internal error' },
  ])('maps the store error $reason to $status $code', async ({ reason, status, code, message }) => {
    const response = await app.request(`/api/v1/vpcs/store-errors/${reason}`);
    expect(response.status).toBe(status);
    const body = await generalError(response);
    expect(body.error.code).toBe(code);
    if (message) expect(body.error.message).toBe(message);
  });

  it('names the invalid fields of a store Invalid error', async () => {
    const response = await app.request('/api/v1/vpcs/store-errors/Invalid');
    expect((await generalError(response)).error.details).toEqual({
      fields: [{ field: 'spec.cidrBlock', rule: 'FieldValueInvalid', message: 'must be a CIDR block' }],
    });
  });
});

describe('response headers', () => {
  it('sends nosniff and no-store and no X-Powered-By', async () => {
    const response = await app.request('/api/v1/vpcs/echoes');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.has('x-powered-by')).toBe(false);
  });
});
