import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { SCOPE_PROBE_ROUTES } from '../fixtures/accounts-probe-routes.js';
import { enveloped, flatError, generalError } from '../fixtures/api-bodies.js';

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform({ extraRoutes: [SCOPE_PROBE_ROUTES] });
  owner = await registerAndSignIn(app);
});
afterAll(async () => {
  await app.close();
});

interface CreatedKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  scopes: string[];
  expires_at: string | null;
  created_at: string;
}

async function createKey(body: Record<string, unknown>, token = owner.token): Promise<CreatedKey> {
  const response = await app.call('POST', '/v1/auth/api-keys', { token, body });
  expect(response.status).toBe(201);
  return (await enveloped<CreatedKey>(response)).data;
}

describe('POST /v1/auth/api-keys', () => {
  it('answers 201 with the key, shown this once', async () => {
    const created = await createKey({ name: 'deploy bot', scopes: ['vault:read', 'vpc:read'] });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[a-z2-7]{24}$/),
      name: 'deploy bot',
      key: expect.stringMatching(/^cpk_[a-z2-7]{8}_[a-z2-7]{32}$/),
      prefix: created.key.slice(0, 12),
      scopes: ['vault:read', 'vpc:read'],
      expires_at: null,
      created_at: app.clock.now().toISOString(),
    });
    const row = await app.database.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.key.slice(13));
  });

  it.each([
    [{ name: 'x', scopes: ['vault:read', 'vault:admin'] }, 'unknown scope "vault:admin"'],
    [{ name: 'x', scopes: [] }, 'scopes must NOT have fewer than 1 items'],
    [{ scopes: ['vault:read'] }, 'name is required'],
    [
      { name: 'x', scopes: ['vault:read'], expires_at: 'tomorrow' },
      'expires_at must match format "date-time"',
    ],
    [
      { name: 'x', scopes: ['vault:read'], expires_at: '2020-01-01T00:00:00Z' },
      'expires_at must be in the future',
    ],
  ])('answers 400 naming the problem for %j', async (body, message) => {
    const response = await app.call('POST', '/v1/auth/api-keys', { token: owner.token, body });
    expect(response.status).toBe(400);
    const error = await flatError(response);
    expect(error.error).toBe('invalid_request');
    expect(error.message).toContain(message);
  });

  it('refuses API keys as credentials for managing keys', async () => {
    const created = await createKey({ name: 'bot', scopes: ['*'] });
    const response = await app.call('POST', '/v1/auth/api-keys', {
      headers: { 'x-api-key': created.key },
      body: { name: 'child', scopes: ['vault:read'] },
    });
    expect(response.status).toBe(403);
  });
});

describe('using an API key', () => {
  it.each([
    ['Authorization: ApiKey', (key: string) => ({ authorization: `ApiKey ${key}` })],
    ['X-API-Key', (key: string) => ({ 'x-api-key': key })],
  ])('is accepted as %s, as the key in its organization', async (_header, headers) => {
    const created = await createKey({ name: 'reader', scopes: ['vault:read'] });
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: headers(created.key) });
    expect(response.status).toBe(200);
    const me = await enveloped<{ current_organization_id: string }>(
      await app.call('GET', '/v1/auth/me', { token: owner.token }),
    );
    const organization = me.data.current_organization_id;
    expect(await response.json()).toEqual({
      kind: 'api_key',
      id: created.id,
      organization_id: organization,
      namespace: `org-${organization.slice(4)}`,
    });
  });

  it('answers GET /v1/auth/me with the key creator and the key itself', async () => {
    const created = await createKey({ name: 'whoami', scopes: ['vpc:read', 'vault:read'] });
    const withKey = await app.call('GET', '/v1/auth/me', { headers: { 'x-api-key': created.key } });
    expect(withKey.status).toBe(200);
    const withToken = await enveloped<{ id: string; email: string; current_organization_id: string }>(
      await app.call('GET', '/v1/auth/me', { token: owner.token }),
    );
    const body = await enveloped<Record<string, unknown>>(withKey);
    expect(body.data).toEqual({
      ...withToken.data,
      api_key: {
        id: created.id,
        organization_id: withToken.data.current_organization_id,
        scopes: ['vpc:read', 'vault:read'],
      },
    });
  });

  it.each([
    ['PATCH', '/v1/auth/me', { name: 'Renamed' }],
    ['POST', '/v1/auth/change-password', { current_password: 'x', new_password: 'y' }],
    ['POST', '/v1/auth/2fa/enable', undefined],
    ['GET', '/v1/auth/sessions', undefined],
  ])('answers 403 to %s %s, which needs a signed-in session', async (method, path, body) => {
    const created = await createKey({ name: `session-only ${path}`, scopes: ['*'] });
    const response = await app.call(method, path, { headers: { 'x-api-key': created.key }, body });
    expect(response.status).toBe(403);
    expect((await response.json()) as Record<string, unknown>).toMatchObject({
      message: expect.stringContaining('signed-in user'),
    });
  });

  it('answers 403 when the key lacks the scope of the route', async () => {
    const created = await createKey({ name: 'reader', scopes: ['vault:read'] });
    const response = await app.call('POST', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    expect(response.status).toBe(403);
    expect((await generalError(response)).error).toEqual({
      code: 'forbidden',
      message: 'this operation requires the scope vault:write',
      details: { missing_scopes: ['vault:write'] },
    });
  });

  it('answers 401 for an expired key', async () => {
    const created = await createKey({
      name: 'short-lived',
      scopes: ['vault:read'],
      expires_at: new Date(app.clock.now().getTime() + 60_000).toISOString(),
    });
    expect(
      (await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } })).status,
    ).toBe(200);
    await app.clock.advance(61_000);
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    expect(response.status).toBe(401);
    expect((await generalError(response)).error).toMatchObject({
      code: 'invalid_api_key',
      message: 'the API key has expired',
    });
  });

  it.each([
    ['a malformed key', 'cpk_nope'],
    ['a right prefix with a wrong secret', 'wrong-secret'],
  ])('answers 401 for %s', async (_case, key) => {
    const created = await createKey({ name: 'k', scopes: ['vault:read'] });
    const sent = key === 'wrong-secret' ? `${created.key.slice(0, 13)}${'a'.repeat(32)}` : key;
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': sent } });
    expect(response.status).toBe(401);
    expect((await generalError(response)).error.code).toBe('invalid_api_key');
  });

  it('answers 401 when both Authorization and X-API-Key are sent', async () => {
    const created = await createKey({ name: 'k', scopes: ['vault:read'] });
    const response = await app.call('GET', '/api/v1/vault/probe', {
      token: owner.token,
      headers: { 'x-api-key': created.key },
    });
    expect(response.status).toBe(401);
  });

  it('counts requests per key for rate limiting', async () => {
    const created = await createKey({ name: 'k', scopes: ['vault:read'] });
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    expect(response.headers.get('x-ratelimit-remaining')).toBe(
      String(app.config.http.rateLimit.perMinute - 1),
    );
  });
});

describe('listing and deleting keys', () => {
  it('lists keys without the keys, with last_used_at moving at most once a minute', async () => {
    const account = await registerAndSignIn(app);
    const created = await createKey({ name: 'listed', scopes: ['vault:read'] }, account.token);
    const firstUse = app.clock.now().toISOString();
    await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    await app.clock.advance(30_000);
    await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    const response = await app.call('GET', '/v1/auth/api-keys', { token: account.token });
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, unknown>[]>(response);
    expect(data).toEqual([
      {
        id: created.id,
        name: 'listed',
        prefix: created.prefix,
        scopes: ['vault:read'],
        organization_id: expect.stringMatching(/^org_/),
        expires_at: null,
        created_at: created.created_at,
        last_used_at: firstUse,
      },
    ]);
    expect(JSON.stringify(data)).not.toContain(created.key);
  });

  it('deletes a key, which stops working at once; another user’s key is 404', async () => {
    const created = await createKey({ name: 'doomed', scopes: ['vault:read'] });
    const stranger = await registerAndSignIn(app);
    const foreign = await app.call('DELETE', `/v1/auth/api-keys/${created.id}`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(await flatError(foreign)).toEqual({
      error: 'not_found',
      message: `API key ${created.id} not found`,
    });
    expect((await app.call('DELETE', `/v1/auth/api-keys/${created.id}`, { token: owner.token })).status).toBe(
      204,
    );
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': created.key } });
    expect(response.status).toBe(401);
  });
});
