import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../vault/audit-log.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let owner: TestAccount;

interface Created {
  id: string;
  unseal_keys: string[];
}

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  app.call(method, `/api/v1/vault${path}`, { token: owner.token, body, headers });

async function createCluster(body: Record<string, unknown> = { name: 'payments' }): Promise<Created> {
  return json<Created>(await call('POST', '', body), 201);
}

async function unsealedCluster(): Promise<string> {
  const { id, unseal_keys: keys } = await createCluster();
  for (const key of keys.slice(0, 3)) await json(await call('POST', `/${id}/unseal`, { key }), 200);
  return id;
}

async function apiKey(scopes: string[]): Promise<string> {
  const response = await app.call('POST', '/v1/auth/api-keys', {
    token: owner.token,
    body: { name: 'ci', scopes },
  });
  return (await json<{ data: { key: string } }>(response, 201)).data.key;
}

beforeAll(async () => {
  app = await startPlatform({ userAgent: 'vault-api-test' });
  owner = await registerAndSignIn(app);
});
afterAll(async () => app?.close());

describe('vault clusters', () => {
  it('creates a sealed cluster and answers its five unseal keys once', async () => {
    const created = await json(await call('POST', '', { name: 'payments' }), 201);
    expect(created).toMatchObject({ name: 'payments', status: 'provisioning', sealed: true });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.unseal_keys).toHaveLength(5);
    const detail = await json(await call('GET', `/${created.id as string}`), 200);
    expect(detail).toMatchObject({
      id: created.id,
      name: 'payments',
      status: 'sealed',
      sealed: true,
      total_secrets: 0,
      storage_used_mb: 0,
      auth_methods: ['token'],
      policies: ['default', 'root'],
      secret_engines: ['kv', 'transit'],
      version: '1.0.0',
    });
    expect(detail).not.toHaveProperty('unseal_keys');
  });

  it('creates an auto-unseal cluster that is running at once and has no unseal keys', async () => {
    const created = await createCluster({ name: 'auto', auto_unseal: true });
    expect(created.unseal_keys).toEqual([]);
    expect(await json(await call('GET', `/${created.id}`), 200)).toMatchObject({
      status: 'running',
      sealed: false,
    });
  });

  it('unseals with three keys, reporting t, n and progress like Vault, and seals again', async () => {
    const { id, unseal_keys: keys } = await createCluster();
    expect(await json(await call('POST', `/${id}/unseal`, { key: keys[0] }), 200)).toEqual({
      sealed: true,
      t: 3,
      n: 5,
      progress: 1,
    });
    await json(await call('POST', `/${id}/unseal`, { key: keys[3] }), 200);
    expect(await json(await call('POST', `/${id}/unseal`, { key: keys[4] }), 200)).toEqual({
      sealed: false,
      t: 3,
      n: 5,
      progress: 0,
    });
    expect(await json(await call('POST', `/${id}/seal`), 200)).toMatchObject({ sealed: true });
  });

  it('lists clusters filtered by status with limit and offset', async () => {
    const sealed = await createCluster({ name: 'listed-sealed' });
    const running = await createCluster({ name: 'listed-running', auto_unseal: true });
    const runningOnly = await json<{ id: string; status: string }[]>(
      await call('GET', '?status=running&limit=100'),
      200,
    );
    expect(runningOnly.map((cluster) => cluster.id)).toContain(running.id);
    expect(runningOnly.map((cluster) => cluster.id)).not.toContain(sealed.id);
    expect(runningOnly.every((cluster) => cluster.status === 'running')).toBe(true);
    expect(await json<unknown[]>(await call('GET', '?limit=1'), 200)).toHaveLength(1);
    expect(await json<unknown[]>(await call('GET', '?offset=1000'), 200)).toEqual([]);
  });

  it.each([
    ['a limit above 100', '?limit=101'],
    ['an unknown status', '?status=melting'],
  ])('answers 400 for %s', async (_case, query) => {
    await json(await call('GET', query), 400);
  });

  it.each([
    ['a missing name', {}],
    ['a threshold above the shares', { name: 'x', shares: 2, threshold: 3 }],
    ['an unknown field', { name: 'x', region: 'eu' }],
  ])('answers 400 for %s and creates nothing', async (_case, body) => {
    const before = (await json<unknown[]>(await call('GET', '?limit=100'), 200)).length;
    await json(await call('POST', '', body), 400);
    expect(await json<unknown[]>(await call('GET', '?limit=100'), 200)).toHaveLength(before);
  });

  it('deletes a cluster with 204, after which it is 404', async () => {
    const { id } = await createCluster();
    expect((await call('DELETE', `/${id}`)).status).toBe(204);
    await json(await call('GET', `/${id}`), 404);
  });

  it('answers 404 for the secrets of a cluster deleted after they were read', async () => {
    const id = await unsealedCluster();
    await json(await call('POST', `/${id}/secret/app/db`, { data: { password: 's3cr3t' } }), 200);
    // Read twice: the second finds the cluster as the first left it, while nothing was written.
    for (let read = 0; read < 2; read++) await json(await call('GET', `/${id}/secret/app/db`), 200);
    expect((await call('DELETE', `/${id}`)).status).toBe(204);
    await json(await call('GET', `/${id}/secret/app/db`), 404);
  });

  it("answers 404 for another organization's cluster, never 403", async () => {
    const { id } = await createCluster();
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    const response = await app.call('GET', `/api/v1/vault/${id}`, { token: stranger.token });
    const body = await json<{ error: { code: string } }>(response, 404);
    expect(body.error.code).toBe('not_found');
    await json(await app.call('GET', `/api/v1/vault/${id}/secret/app`, { token: stranger.token }), 404);
  });

  it('answers 401 without credentials', async () => {
    await json(await app.call('GET', '/api/v1/vault'), 401);
  });

  it('answers 403 naming the scope when an API key may only read', async () => {
    const key = await apiKey(['vault:read']);
    const headers = { authorization: `ApiKey ${key}` };
    await json(await app.call('GET', '/api/v1/vault', { headers }), 200);
    const refused = await json<{ error: { message: string } }>(
      await app.call('POST', '/api/v1/vault', { headers, body: { name: 'nope' } }),
      403,
    );
    expect(refused.error.message).toContain('vault:write');
  });
});

describe('vault secrets', () => {
  let id: string;
  beforeAll(async () => {
    id = await unsealedCluster();
  });

  it('answers 503 for data operations while the cluster is sealed', async () => {
    const { id: sealed } = await createCluster();
    const body = await json<{ error: { code: string } }>(await call('GET', `/${sealed}/secret/app/db`), 503);
    expect(body.error.code).toBe('sealed');
    await json(await call('POST', `/${sealed}/secret/app/db`, { data: { a: 1 } }), 503);
    await json(await call('POST', `/${sealed}/encrypt/k`, { plaintext: 'aGk=' }), 503);
  });

  it('writes versions from 1 and reads the wrapper exactly as Vault shapes it', async () => {
    const written = await json(
      await call('POST', `/${id}/secret/app/db`, { data: { password: 's3cr3t' } }),
      200,
    );
    expect(written).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: {
        created_time: '2026-03-01T09:00:00.000Z',
        custom_metadata: null,
        deletion_time: '',
        destroyed: false,
        version: 1,
      },
      warnings: null,
      auth: null,
    });
    await json(await call('POST', `/${id}/secret/app/db`, { data: { password: 'rotated' } }), 200);
    const read = await json<{ data: unknown }>(await call('GET', `/${id}/secret/app/db`), 200);
    expect(read.data).toEqual({
      data: { password: 'rotated' },
      metadata: {
        created_time: '2026-03-01T09:00:00.000Z',
        custom_metadata: null,
        deletion_time: '',
        destroyed: false,
        version: 2,
      },
    });
    const first = await json<{ data: { data: unknown } }>(
      await call('GET', `/${id}/secret/app/db?version=1`),
      200,
    );
    expect(first.data.data).toEqual({ password: 's3cr3t' });
    await json(await call('GET', `/${id}/secret/app/db?version=9`), 404);
  });

  it.each([
    ['cas 0 on an existing secret', { cas: 0 }],
    ['a stale cas', { cas: 1 }],
  ])('answers 409 for %s', async (_case, options) => {
    await json(await call('POST', `/${id}/secret/cas/item`, { data: { v: 1 } }), 200);
    await json(await call('POST', `/${id}/secret/cas/item`, { data: { v: 2 } }), 200);
    const body = await json<{ error: { code: string; message: string } }>(
      await call('POST', `/${id}/secret/cas/item`, { data: { v: 3 }, options }),
      409,
    );
    expect(body.error.message).toContain('check-and-set failed');
  });

  it('soft-deletes with 204; a later read is 404 and deleting the unknown is 404', async () => {
    await json(await call('POST', `/${id}/secret/temp/x`, { data: { v: 1 } }), 200);
    expect((await call('DELETE', `/${id}/secret/temp/x`)).status).toBe(204);
    await json(await call('GET', `/${id}/secret/temp/x`), 404);
    await json(await call('DELETE', `/${id}/secret/never/written`), 404);
  });

  it('lists by prefix and recursively with list=true', async () => {
    for (const path of ['svc/a', 'svc/b/c', 'svc/b/d']) {
      await json(await call('POST', `/${id}/secret/${path}`, { data: { v: path } }), 200);
    }
    expect((await json<{ data: unknown }>(await call('GET', `/${id}/secret?path=svc`), 200)).data).toEqual({
      keys: ['a', 'b/'],
    });
    expect(
      (await json<{ data: unknown }>(await call('GET', `/${id}/secret?path=svc/&list=true`), 200)).data,
    ).toEqual({
      keys: ['a', 'b/c', 'b/d'],
    });
  });

  it.each(['a//b', 'bad*char', 'sp%20ace'])('answers 400 for the invalid path %s', async (path) => {
    const body = await json<{ error: { message: string } }>(
      await call('POST', `/${id}/secret/${path}`, { data: { v: 1 } }),
      400,
    );
    expect(body.error.message).toContain('invalid secret path');
  });

  it('counts secrets and storage on the cluster', async () => {
    const detail = await json<{ total_secrets: number; storage_used_mb: number }>(
      await call('GET', `/${id}`),
      200,
    );
    expect(detail.total_secrets).toBeGreaterThan(0);
    expect(detail.storage_used_mb).toBe(1);
  });
});

describe('vault policies, auth methods and tokens', () => {
  let id: string;
  beforeAll(async () => {
    id = await unsealedCluster();
  });

  const rules = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

  it('creates or updates a policy (idempotent 200), reads, lists and deletes it', async () => {
    expect((await call('POST', `/${id}/policies`, { name: 'app', rules })).status).toBe(200);
    expect((await call('POST', `/${id}/policies`, { name: 'app', rules })).status).toBe(200);
    expect(await json(await call('GET', `/${id}/policies/app`), 200)).toEqual({
      name: 'app',
      rules,
      created_at: '2026-03-01T09:00:00.000Z',
    });
    const list = await json<{ policies: { name: string }[] }>(await call('GET', `/${id}/policies`), 200);
    expect(list.policies.map((policy) => policy.name)).toEqual(['default', 'root', 'app']);
    expect((await call('DELETE', `/${id}/policies/app`)).status).toBe(204);
    await json(await call('GET', `/${id}/policies/app`), 404);
    await json(await call('DELETE', `/${id}/policies/app`), 404);
  });

  it('answers 400 naming the line of a syntax error, and stores nothing', async () => {
    const body = await json<{ error: { message: string } }>(
      await call('POST', `/${id}/policies`, {
        name: 'broken',
        rules: 'path "a" {\n  capabilities = ["read", "fly"]\n}',
      }),
      400,
    );
    expect(body.error.message).toBe(
      'policy rules, line 2: unknown capability "fly"; allowed: create, read, update, patch, delete, list, sudo, deny',
    );
    await json(await call('GET', `/${id}/policies/broken`), 404);
  });

  it('enforces a vault token: 401 for an unknown one, 403 outside its policies', async () => {
    await json(await call('POST', `/${id}/policies`, { name: 'reader', rules }), 200);
    await json(await call('POST', `/${id}/secret/app/one`, { data: { v: 1 } }), 200);
    const token = await json<{ client_token: string }>(
      await call('POST', `/${id}/tokens`, { policies: ['reader'] }),
      201,
    );
    const as = (vaultToken: string) => ({ 'x-vault-token': vaultToken });
    await json(await call('GET', `/${id}/secret/app/one`, undefined, as(token.client_token)), 200);
    const denied = await json<{ error: { code: string } }>(
      await call('POST', `/${id}/secret/app/one`, { data: { v: 2 } }, as(token.client_token)),
      403,
    );
    expect(denied.error.code).toBe('permission_denied');
    await json(await call('GET', `/${id}/secret/app/one`, undefined, as('hvs.unknown')), 401);
  });

  it('creates tokens shown once, lists them without values, and revokes by accessor', async () => {
    const created = await json<Record<string, unknown>>(
      await call('POST', `/${id}/tokens`, { display_name: 'ci', ttl: 3600, policies: ['reader'] }),
      201,
    );
    expect(created).toMatchObject({
      display_name: 'token-ci',
      ttl: 3600,
      issue_time: '2026-03-01T09:00:00.000Z',
      expire_time: '2026-03-01T10:00:00.000Z',
      policies: ['default', 'reader'],
    });
    expect(created.client_token).toMatch(/^hvs\./);
    const list = await json<Record<string, unknown>[]>(await call('GET', `/${id}/tokens`), 200);
    const listed = list.find((token) => token.accessor === created.accessor);
    expect(listed).toMatchObject({ type: 'service', last_renewal_time: '2026-03-01T09:00:00.000Z' });
    expect(JSON.stringify(list)).not.toContain(created.client_token as string);
    expect((await call('DELETE', `/${id}/tokens/${created.accessor as string}`)).status).toBe(204);
    await json(await call('DELETE', `/${id}/tokens/${created.accessor as string}`), 404);
    await json(
      await call('GET', `/${id}/secret/app/one`, undefined, {
        'x-vault-token': created.client_token as string,
      }),
      401,
    );
  });

  it('honours the token method TTL settings', async () => {
    expect(
      (
        await call('POST', `/${id}/auth/token`, {
          type: 'token',
          config: { default_lease_ttl: 60, max_lease_ttl: 120 },
        })
      ).status,
    ).toBe(204);
    expect((await json<{ ttl: number }>(await call('POST', `/${id}/tokens`, {}), 201)).ttl).toBe(60);
    expect((await json<{ ttl: number }>(await call('POST', `/${id}/tokens`, { ttl: 9999 }), 201)).ttl).toBe(
      120,
    );
  });

  it('enables jwt and approle methods and lists them with paths ending in "/"', async () => {
    const jwt = {
      type: 'jwt',
      description: 'CI',
      config: {
        oidc_discovery_url: 'https://issuer.example.com',
        oidc_client_id: 'vault',
        bound_audiences: ['vault'],
      },
    };
    expect((await call('POST', `/${id}/auth/jwt`, jwt)).status).toBe(204);
    expect((await call('POST', `/${id}/auth/approle`, { type: 'approle' })).status).toBe(204);
    const { auth_methods: methods } = await json<{ auth_methods: { type: string; path: string }[] }>(
      await call('GET', `/${id}/auth`),
      200,
    );
    expect(methods.map((method) => [method.type, method.path])).toEqual([
      ['approle', 'approle/'],
      ['jwt', 'jwt/'],
      ['token', 'token/'],
    ]);
    await json(await call('POST', `/${id}/auth/jwt`, jwt), 409);
  });

  it.each([
    ['an unknown type', { type: 'ldap' }, 'unknown auth method type "ldap"'],
    ['jwt without its settings', { type: 'jwt', config: {} }, 'oidc_discovery_url is required'],
    [
      'jwt over plain http',
      {
        type: 'jwt',
        config: {
          oidc_discovery_url: 'http://issuer.example.com',
          oidc_client_id: 'a',
          bound_audiences: ['a'],
        },
      },
      'must be an https URL',
    ],
    [
      'an unknown setting',
      { type: 'approle', config: { colour: 'blue' } },
      'colour is not a approle setting',
    ],
  ])('answers 400 for %s', async (_case, body, message) => {
    const answer = await json<{ error: { message: string } }>(
      await call('POST', `/${id}/auth/other`, body),
      400,
    );
    expect(answer.error.message).toContain(message);
  });

  it('accepts an http discovery URL on a loopback address', async () => {
    const config = {
      oidc_discovery_url: 'http://127.0.0.1:8080/realms/x',
      oidc_client_id: 'a',
      bound_audiences: ['a'],
    };
    expect((await call('POST', `/${id}/auth/local-jwt`, { type: 'jwt', config })).status).toBe(204);
  });
});

describe('vault transit', () => {
  let id: string;
  beforeAll(async () => {
    id = await unsealedCluster();
  });

  it('encrypts, rotates, and decrypts ciphertexts of every version', async () => {
    const plaintext = Buffer.from('4111 1111 1111 1111').toString('base64');
    const v1 = await json<{ cipher_text: string }>(
      await call('POST', `/${id}/encrypt/cards`, { plaintext }),
      200,
    );
    expect(v1.cipher_text).toMatch(/^vault:v1:/);
    expect(await json(await call('POST', `/${id}/keys/cards/rotate`), 200)).toEqual({
      name: 'cards',
      latest_version: 2,
      min_decryption_version: 1,
    });
    const v2 = await json<{ cipher_text: string }>(
      await call('POST', `/${id}/encrypt/cards`, { plaintext }),
      200,
    );
    expect(v2.cipher_text).toMatch(/^vault:v2:/);
    for (const cipherText of [v1.cipher_text, v2.cipher_text]) {
      expect(
        await json(await call('POST', `/${id}/decrypt/cards`, { cipher_text: cipherText }), 200),
      ).toEqual({ plaintext });
    }
  });

  it.each([
    ['bad base64 plaintext', 'encrypt', { plaintext: '***' }],
    ['a ciphertext without the prefix', 'decrypt', { cipher_text: 'abc' }],
    [
      'a foreign ciphertext',
      'decrypt',
      { cipher_text: `vault:v1:${Buffer.alloc(40, 7).toString('base64')}` },
    ],
  ])('answers 400 for %s', async (_case, operation, body) => {
    await json(await call('POST', `/${id}/encrypt/other`, { plaintext: 'aGk=' }), 200);
    await json(await call('POST', `/${id}/${operation}/other`, body), 400);
  });

  it('answers 404 when rotating a key that does not exist', async () => {
    await json(await call('POST', `/${id}/keys/missing/rotate`), 404);
  });
});

describe('vault audit log', () => {
  it('records every operation, refusals included, with HMAC-ed token fields, paged and filtered by time', async () => {
    const { id, unseal_keys: keys } = await createCluster();
    await json(await call('GET', `/${id}/secret/a`), 503);
    for (const key of keys.slice(0, 3)) await call('POST', `/${id}/unseal`, { key });
    await app.clock.advance(60_000);
    await json(await call('POST', `/${id}/secret/a`, { data: { v: 1 } }), 200);
    const entries = await json<AuditEntry[]>(await call('GET', `/${id}/audit`), 200);
    expect(
      entries.map((entry) => [entry.request.operation, entry.request.path, entry.response.status]),
    ).toEqual([
      ['UPDATE', 'sys/init', 201],
      ['READ', 'secret/data/a', 503],
      ['UPDATE', 'sys/unseal', 200],
      ['UPDATE', 'sys/unseal', 200],
      ['UPDATE', 'sys/unseal', 200],
      ['UPDATE', 'secret/data/a', 200],
    ]);
    const write = entries.at(-1)!;
    expect(write).toMatchObject({
      timestamp: '2026-03-01T09:01:00.000Z',
      request: { client_address: '127.0.0.1', user_agent: 'vault-api-test' },
      auth: { policies: ['root'] },
      error: null,
    });
    expect(write.request.client_token).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(entries[1]!.error).toContain('sealed');
    expect(JSON.stringify(entries)).not.toContain(owner.token);
    expect(await json<unknown[]>(await call('GET', `/${id}/audit?limit=2&offset=1`), 200)).toHaveLength(2);
    const later = await json<AuditEntry[]>(await call('GET', `/${id}/audit?from=2026-03-01T09:00:30Z`), 200);
    expect(later.map((entry) => entry.request.path)).toEqual(['secret/data/a', 'sys/audit', 'sys/audit']);
    const earlier = await json<unknown[]>(await call('GET', `/${id}/audit?to=2026-03-01T09:00:30Z`), 200);
    expect(earlier).toHaveLength(5);
    await json(await call('GET', `/${id}/audit?limit=1001`), 400);
  });
});
