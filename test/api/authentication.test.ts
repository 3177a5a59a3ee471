import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enveloped, generalError } from '../fixtures/api-bodies.js';
import { bearerAuthenticator } from '../fixtures/bearer-authenticator.js';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ routes: ECHO_ROUTES, authenticator: bearerAuthenticator });
});
afterAll(async () => {
  await app.close();
});

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe('authentication', () => {
  it('answers 401 unauthorized in the general style when an authenticated route gets no credentials', async () => {
    const response = await app.request('/v1/stacks/echoes');
    expect(response.status).toBe(401);
    expect((await generalError(response)).error).toEqual({
      code: 'unauthorized',
      message: 'authentication required',
      details: {},
    });
  });

  it('answers 401 in the flat style under /v1/auth', async () => {
    const response = await app.request('/v1/auth/echo-me');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthorized', message: 'authentication required' });
  });

  it('answers the error the authenticator raises for bad credentials, even on a public route', async () => {
    const response = await app.request('/api/v1/vpcs/echoes', { headers: bearer('forged') });
    expect(response.status).toBe(401);
    expect((await generalError(response)).error).toMatchObject({
      code: 'invalid_token',
      message: 'invalid token',
    });
  });

  it('hands the principal to the handler', async () => {
    const response = await app.request('/v1/auth/echo-me', { headers: bearer('admin') });
    expect((await enveloped(response)).data).toEqual({ id: 'key_admin', kind: 'api_key' });
  });

  it('serves a public route without credentials', async () => {
    const response = await app.request('/api/v1/vpcs/echoes');
    expect(response.status).toBe(200);
  });
});

describe('scopes', () => {
  it('answers 403 forbidden naming the missing scope', async () => {
    const response = await app.request('/v1/stacks/echoes/first', {
      method: 'POST',
      headers: { ...bearer('reader'), 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(response.status).toBe(403);
    expect((await generalError(response)).error).toEqual({
      code: 'forbidden',
      message: 'this operation requires the scope stacks:write',
      details: { missing_scopes: ['stacks:write'] },
    });
  });

  it.each([
    ['reader', 'stacks:read', 200],
    ['writer', 'stacks:read', 200],
    ['admin', '*', 200],
  ])('lets %s (holding %s) list', async (token, _scope, status) => {
    const response = await app.request('/v1/stacks/echoes', { headers: bearer(token) });
    expect(response.status).toBe(status);
  });

  it('checks scopes before reading the body', async () => {
    const response = await app.request('/v1/stacks/echoes/first', {
      method: 'POST',
      headers: { ...bearer('reader'), 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(403);
  });
});
