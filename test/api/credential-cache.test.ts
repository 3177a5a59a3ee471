/**
 * Credentials are resolved once per replica and kept, yet a credential that ends fails on the very
 * next request: logout, a revoked session, a deleted API key and a changed role take effect at
 * once, on the replica that made the change and, on PostgreSQL, on another replica too.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedToken, registerAndSignIn, signIn, type TestAccount } from '../fixtures/accounts-app.js';
import { enveloped } from '../fixtures/api-bodies.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

/** Asks `app` who `credential` is, warming its cache. */
async function me(app: TestPlatform, credential: { token?: string; key?: string }): Promise<number> {
  const response = await app.call('GET', '/v1/auth/me', {
    ...(credential.token ? { token: credential.token } : {}),
    ...(credential.key ? { headers: { 'x-api-key': credential.key } } : {}),
  });
  return response.status;
}

async function createKey(app: TestPlatform, account: TestAccount): Promise<{ id: string; key: string }> {
  const response = await app.call('POST', '/v1/auth/api-keys', {
    token: account.token,
    body: { name: 'cached', scopes: ['vpc:read'] },
  });
  expect(response.status).toBe(201);
  return (await enveloped<{ id: string; key: string }>(response)).data;
}

/** The cases, run against a replica that changes (`writer`) and one that only reads (`reader`). */
function credentialCases(replicas: () => { writer: TestPlatform; reader: TestPlatform }) {
  it('refuses a bearer token on the request after its logout', async () => {
    const { writer, reader } = replicas();
    const account = await registerAndSignIn(writer);
    expect(await me(reader, account)).toBe(200);
    expect(await me(reader, account)).toBe(200);
    expect((await writer.call('POST', '/v1/auth/logout', { token: account.token })).status).toBe(204);
    expect(await me(reader, account)).toBe(401);
  });

  it('answers requests sent together alike: every one before a logout, none after', async () => {
    const { writer, reader } = replicas();
    const account = await registerAndSignIn(writer);
    const together = () => Promise.all(Array.from({ length: 5 }, () => me(reader, account)));
    expect(await together()).toEqual([200, 200, 200, 200, 200]);
    expect((await writer.call('POST', '/v1/auth/logout', { token: account.token })).status).toBe(204);
    expect(await together()).toEqual([401, 401, 401, 401, 401]);
  });

  it('refuses a bearer token on the request after its session was revoked from another', async () => {
    const { writer, reader } = replicas();
    const account = await registerAndSignIn(writer);
    const other = await signIn(writer, account.email, account.password);
    expect(await me(reader, other)).toBe(200);
    const listed = await enveloped<{ id: string; current: boolean }[]>(
      await writer.call('GET', '/v1/auth/sessions', { token: account.token }),
    );
    const target = listed.data.find((session) => !session.current)!;
    expect(
      (await writer.call('DELETE', `/v1/auth/sessions/${target.id}`, { token: account.token })).status,
    ).toBe(204);
    expect(await me(reader, other)).toBe(401);
    expect(await me(reader, account)).toBe(200);
  });

  it('refuses an API key on the request after it was deleted', async () => {
    const { writer, reader } = replicas();
    const account = await registerAndSignIn(writer);
    const { id, key } = await createKey(writer, account);
    expect(await me(reader, { key })).toBe(200);
    expect((await writer.call('DELETE', `/v1/auth/api-keys/${id}`, { token: account.token })).status).toBe(
      204,
    );
    expect(await me(reader, { key })).toBe(401);
  });

  it("refuses a member's API key on the request after they were removed from the organization", async () => {
    const { writer, reader } = replicas();
    const owner = await verifiedUser(writer);
    const member = await verifiedUser(writer);
    const invited = await writer.call('POST', `/v1/organizations/${owner.organizationId}/invitations`, {
      token: owner.token,
      body: { email: member.email, role: 'admin' },
    });
    expect(invited.status).toBe(201);
    const token = mailedToken(writer, member.email, 'accept-invitation');
    expect(
      (await writer.call('POST', `/v1/invitations/${token}/accept`, { token: member.token })).status,
    ).toBe(200);
    const switched = await writer.call('PATCH', '/v1/auth/me', {
      token: member.token,
      body: { current_organization_id: owner.organizationId },
    });
    expect(switched.status).toBe(200);
    const { key } = await createKey(writer, member);
    expect(await me(reader, { key })).toBe(200);
    const removed = await writer.call(
      'DELETE',
      `/v1/organizations/${owner.organizationId}/members/${member.id}`,
      { token: owner.token },
    );
    expect(removed.status).toBe(204);
    expect(await me(reader, { key })).toBe(401);
  });
}

async function verifiedUser(app: TestPlatform): Promise<TestAccount & { organizationId: string }> {
  const account = await registerAndSignIn(app);
  const verified = await app.call('POST', '/v1/auth/verify-email', {
    body: { token: mailedToken(app, account.email, 'verify-email') },
  });
  expect(verified.status).toBe(200);
  const organizations = await enveloped<{ id: string }[]>(
    await app.call('GET', '/v1/organizations', { token: account.token }),
  );
  return { ...account, organizationId: organizations.data[0]!.id };
}

describe('credential cache on SQLite (one replica)', () => {
  let app: TestPlatform;
  beforeAll(async () => {
    app = await startPlatform();
  });
  afterAll(async () => app?.close());
  credentialCases(() => ({ writer: app, reader: app }));
});

describeWithPostgres('credential cache on PostgreSQL (two replicas)', () => {
  let postgres: TestPostgresDatabase;
  let writer: TestPlatform;
  let reader: TestPlatform;
  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    const env = {
      CLOUDPLANE_KMS_KEY: randomBytes(32).toString('base64'),
      CLOUDPLANE_BASE_URL: 'https://cloudplane.test',
      DATABASE_URL: postgres.url,
    };
    const platformKey = randomBytes(32);
    writer = await startPlatform({ databaseUrl: postgres.url, env, platformKey });
    reader = await startPlatform({ databaseUrl: postgres.url, env, platformKey });
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await postgres?.drop();
  });
  credentialCases(() => ({ writer, reader }));
});
