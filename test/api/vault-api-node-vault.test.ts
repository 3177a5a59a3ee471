import nodeVault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../vault/audit-log.js';
import {
  createPlatformCluster,
  platformUser,
  platformVaultToken,
  type PlatformCluster,
} from '../fixtures/vault-api-app.js';
import { startOidcIssuer, type OidcIssuer } from '../fixtures/vault-api-oidc.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let bearer: string;
let cluster: PlatformCluster;
let rootToken: string;
let vault: nodeVault.client;

/** A node-vault client on the cluster's address. Node's HTTP server cannot parse LIST, so lists use ?list=true. */
const client = (token?: string, endpoint = cluster.apiAddress) =>
  nodeVault({ endpoint, token, noCustomHTTPVerbs: true });

/** The status and errors node-vault rejected with. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; errors: string[] }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { response?: { statusCode: number; body: { errors: string[] } } } | undefined;
  if (!error?.response) throw new Error('expected the request to be refused');
  return { status: error.response.statusCode, errors: error.response.body.errors };
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

beforeAll(async () => {
  app = await startPlatform({ userAgent: 'vault-api-test' });
  bearer = await platformUser(app);
  cluster = await createPlatformCluster(app, bearer, { name: 'payments', auto_unseal: true });
  rootToken = await platformVaultToken(app, bearer, cluster.id, ['root']);
  vault = client(rootToken);
});
afterAll(async () => app?.close());

describe('the address of a cluster', () => {
  it('is {base_url}/vault/<cluster id>, as the platform API shows it', () => {
    expect(cluster.apiAddress).toBe(`${app.url}/vault/${cluster.id}`);
  });

  it('answers seal status and health without a token', async () => {
    expect(await client().status()).toMatchObject({ sealed: false, initialized: true });
    expect(await client().health()).toMatchObject({ initialized: true, sealed: false });
  });

  it('answers 404 with an empty error list for an unknown cluster', async () => {
    const unknown = client(rootToken, `${app.url}/vault/00000000-0000-4000-8000-000000000000`);
    expect(await refusal(unknown.read('secret/data/app'))).toEqual({ status: 404, errors: [] });
  });
});

describe('KV v2 at secret/', () => {
  it('writes, reads, versions, lists and deletes a secret', async () => {
    const first = await vault.write('secret/data/app/db', { data: { password: 'first' } });
    expect(first.data).toMatchObject({ version: 1, destroyed: false, deletion_time: '' });
    await vault.write('secret/data/app/db', { data: { password: 'second' } });
    expect((await vault.read('secret/data/app/db')).data).toMatchObject({
      data: { password: 'second' },
      metadata: { version: 2 },
    });
    expect((await vault.read('secret/data/app/db?version=1')).data.data).toEqual({ password: 'first' });
    await vault.write('secret/data/app/api/key', { data: { value: 'k' } });
    expect((await vault.list('secret/metadata/app')).data.keys).toEqual(['api/', 'db']);
    expect((await vault.read('secret/metadata/app/db')).data).toMatchObject({
      current_version: 2,
      versions: { '1': { destroyed: false }, '2': { destroyed: false } },
    });
    await vault.delete('secret/data/app/db');
    expect(await refusal(vault.read('secret/data/app/db'))).toEqual({ status: 404, errors: [] });
    await vault.delete('secret/metadata/app/db');
    expect((await vault.list('secret/metadata/app')).data.keys).toEqual(['api/']);
  });

  it('answers 400 when a check-and-set write names a stale version', async () => {
    await vault.write('secret/data/cas', { data: { n: 1 } });
    const stale = await refusal(vault.write('secret/data/cas', { data: { n: 2 }, options: { cas: 0 } }));
    expect(stale.status).toBe(400);
    expect(stale.errors[0]).toMatch(/check-and-set/);
  });

  it('answers 400 naming the problem for a write without data', async () => {
    expect(await refusal(vault.write('secret/data/empty', { options: {} }))).toEqual({
      status: 400,
      errors: ['no data provided'],
    });
  });
});

describe('transit', () => {
  it('encrypts and decrypts, and still decrypts old ciphertexts after a rotation', async () => {
    const plaintext = base64('order 1234');
    const encrypted = await vault.write('transit/encrypt/orders', { plaintext });
    expect(encrypted.data.ciphertext).toMatch(/^vault:v1:/);
    await vault.write('transit/keys/orders/rotate', {});
    const rotated = await vault.write('transit/encrypt/orders', { plaintext });
    expect(rotated.data.ciphertext).toMatch(/^vault:v2:/);
    for (const ciphertext of [encrypted.data.ciphertext, rotated.data.ciphertext]) {
      expect((await vault.write('transit/decrypt/orders', { ciphertext })).data.plaintext).toBe(plaintext);
    }
  });
});

describe('policies and tokens', () => {
  const readOnlyRules = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

  it('refuses with 403 what a token policy does not allow', async () => {
    await vault.addPolicy({ name: 'app-read', rules: readOnlyRules });
    expect((await vault.read('sys/policies/acl/app-read')).data.policy).toBe(readOnlyRules);
    const created = await client(rootToken).tokenCreate({
      policies: ['app-read'],
      ttl: '1h',
      display_name: 'reader',
    });
    expect(created.auth).toMatchObject({ policies: ['app-read', 'default'], lease_duration: 3600 });
    const reader = client(created.auth.client_token);
    await vault.write('secret/data/app/service', { data: { user: 'svc' } });
    expect((await reader.read('secret/data/app/service')).data.data).toEqual({ user: 'svc' });
    const denied = { status: 403, errors: ['permission denied'] };
    expect(await refusal(reader.write('secret/data/app/service', { data: { user: 'x' } }))).toEqual(denied);
    expect(await refusal(reader.read('secret/data/other'))).toEqual(denied);
    expect(await refusal(reader.write('transit/encrypt/orders', { plaintext: base64('x') }))).toEqual(denied);
    expect(await refusal(reader.write('sys/seal', {}))).toEqual(denied);
  });

  it.each([
    ['without a token', undefined],
    ['with an unknown token', 'hvs.not-a-real-token'],
  ])('answers 403 permission denied %s', async (_case, token) => {
    expect(await refusal(client(token).read('secret/data/app/service'))).toEqual({
      status: 403,
      errors: ['permission denied'],
    });
  });

  it('lets a token look itself up, renew and revoke itself', async () => {
    const created = await client(rootToken).tokenCreate({ policies: ['app-read'], ttl: '10m' });
    const self = client(created.auth.client_token);
    expect((await self.tokenLookupSelf()).data).toMatchObject({
      accessor: created.auth.accessor,
      policies: ['app-read', 'default'],
      ttl: 600,
    });
    expect((await self.tokenRenewSelf({ increment: '20m' })).auth.lease_duration).toBe(1200);
    await self.tokenRevokeSelf();
    expect((await refusal(self.tokenLookupSelf())).status).toBe(403);
  });

  it('refuses a child token with policies its parent does not hold', async () => {
    await vault.addPolicy({
      name: 'token-maker',
      rules: 'path "auth/token/create" {\n  capabilities = ["update"]\n}\n',
    });
    const maker = client(
      (await client(rootToken).tokenCreate({ policies: ['token-maker'] })).auth.client_token,
    );
    const refused = await refusal(maker.tokenCreate({ policies: ['root'] }));
    expect(refused.status).toBe(400);
    expect(refused.errors[0]).toMatch(/subset of parent/);
  });
});

describe('a cluster with unseal keys', () => {
  it('unseals through sys/unseal with node-vault and answers 503 while sealed', async () => {
    const shamir = await createPlatformCluster(app, bearer, { name: 'shamir', auto_unseal: false });
    const anonymous = client(undefined, shamir.apiAddress);
    expect(await anonymous.status()).toMatchObject({ sealed: true, t: 3, n: 5, progress: 0 });
    expect(await refusal(anonymous.read('secret/data/app'))).toEqual({
      status: 503,
      errors: ['Vault is sealed'],
    });
    expect(await anonymous.unseal({ key: shamir.unsealKeys[0] })).toMatchObject({
      sealed: true,
      progress: 1,
    });
    expect(await anonymous.unseal({ key: shamir.unsealKeys[1] })).toMatchObject({
      sealed: true,
      progress: 2,
    });
    expect(await anonymous.unseal({ key: shamir.unsealKeys[2] })).toMatchObject({
      sealed: false,
      progress: 0,
    });
    const operator = client(await platformVaultToken(app, bearer, shamir.id, ['root']), shamir.apiAddress);
    await operator.write('secret/data/app', { data: { ok: 'yes' } });
    expect((await refusal(anonymous.seal())).status).toBe(403);
    await operator.seal();
    expect((await anonymous.status()).sealed).toBe(true);
  });
});

describe('approle', () => {
  it('logs in with a role id and secret id and answers a token with the role policies', async () => {
    await vault.enableAuth({ mount_point: 'approle', type: 'approle', description: 'ci' });
    await vault.addApproleRole({ role_name: 'ci', policies: 'app-read', token_ttl: 900 });
    const { role_id: roleId } = (await vault.getApproleRoleId({ role_name: 'ci' })).data;
    const { secret_id: secretId } = (await vault.getApproleRoleSecret({ role_name: 'ci' })).data;
    const machine = client();
    const login = await machine.approleLogin({ role_id: roleId, secret_id: secretId });
    expect(login.auth).toMatchObject({
      policies: ['app-read', 'default'],
      lease_duration: 900,
      renewable: true,
    });
    expect((await machine.read('secret/data/app/service')).data.data).toEqual({ user: 'svc' });
    expect((await refusal(machine.read('secret/data/other'))).status).toBe(403);
  });

  it('answers 400 for a wrong secret id', async () => {
    const { role_id: roleId } = (await vault.getApproleRoleId({ role_name: 'ci' })).data;
    expect(await refusal(client().approleLogin({ role_id: roleId, secret_id: 'wrong' }))).toEqual({
      status: 400,
      errors: ['invalid role or secret ID'],
    });
  });
});

describe('jwt', () => {
  let issuer: OidcIssuer;

  beforeAll(async () => {
    issuer = await startOidcIssuer();
    const enabled = await app.call('POST', `/api/v1/vault/${cluster.id}/auth/jwt`, {
      token: bearer,
      body: {
        type: 'jwt',
        config: { oidc_discovery_url: issuer.url, oidc_client_id: 'payments', bound_audiences: ['payments'] },
      },
    });
    expect(enabled.status).toBe(204);
    await vault.write('auth/jwt/role/deployer', {
      role_type: 'jwt',
      bound_audiences: ['payments'],
      user_claim: 'sub',
      token_policies: ['app-read'],
      bound_claims: { team: 'platform' },
    });
  });
  afterAll(async () => issuer?.close());

  const jwt = (
    audience: string,
    options: { expiresInSeconds?: number; foreignKey?: boolean; team?: string } = {},
  ) =>
    issuer.sign(
      { sub: 'deploy-bot', team: options.team ?? 'platform' },
      {
        audience,
        issuedAt: app.clock.now(),
        expiresInSeconds: options.expiresInSeconds ?? 300,
        foreignKey: options.foreignKey,
      },
    );

  it('logs in with a JWT signed by the provider and answers a token with the role policies', async () => {
    const user = client();
    const login = await user.jwtLogin({ role: 'deployer', jwt: await jwt('payments') });
    expect(login.auth).toMatchObject({
      policies: ['app-read', 'default'],
      metadata: { role: 'deployer', sub: 'deploy-bot' },
    });
    expect((await user.read('secret/data/app/service')).data.data).toEqual({ user: 'svc' });
  });

  it.each([
    ['a wrong audience', () => jwt('someone-else'), /aud/],
    ['an expired token', () => jwt('payments', { expiresInSeconds: -60 }), /exp/],
    ['a token signed by another key', () => jwt('payments', { foreignKey: true }), /signature/],
    ['a claim outside the bound claims', () => jwt('payments', { team: 'web' }), /team/],
  ])('answers 400 for %s', async (_case, token, message) => {
    const refused = await refusal(client().jwtLogin({ role: 'deployer', jwt: await token() }));
    expect(refused.status).toBe(400);
    expect(refused.errors[0]).toMatch(message);
  });
});

describe('the audit log', () => {
  it('shows the node-vault operations with HMAC-ed tokens and never a token value', async () => {
    const response = await app.call('GET', `/api/v1/vault/${cluster.id}/audit?limit=1000`, { token: bearer });
    const text = await response.text();
    expect(response.status).toBe(200);
    const entries = JSON.parse(text) as AuditEntry[];
    const reads = entries.filter((entry) => entry.request.path === 'secret/data/app/db');
    expect(reads.map((entry) => entry.request.operation)).toEqual(
      expect.arrayContaining(['UPDATE', 'READ', 'DELETE']),
    );
    expect(reads[0]!.request.client_token).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(reads[0]!.request.user_agent).toMatch(/axios/);
    expect(entries.some((entry) => entry.request.path === 'auth/approle/login')).toBe(true);
    expect(entries.some((entry) => entry.request.path === 'auth/jwt/login' && entry.error !== null)).toBe(
      true,
    );
    expect(text).not.toContain(rootToken);
  });

  it('records the token-less logins with no policies, never as root', async () => {
    const response = await app.call('GET', `/api/v1/vault/${cluster.id}/audit?limit=1000`, { token: bearer });
    const entries = (await response.json()) as AuditEntry[];
    const logins = entries.filter((entry) => entry.request.path === 'auth/approle/login');
    expect(logins.length).toBeGreaterThan(0);
    for (const login of logins) expect(login.auth.policies).toEqual([]);
  });
});
