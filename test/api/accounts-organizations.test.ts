import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { SCOPE_PROBE_ROUTES } from '../fixtures/accounts-probe-routes.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform({ extraRoutes: [SCOPE_PROBE_ROUTES] });
});
afterAll(async () => {
  await app.close();
});

interface Organization {
  id: string;
  name: string;
  role: string;
  created_at: string;
}

async function createOrganization(account: TestAccount, name: string): Promise<Organization> {
  const response = await app.call('POST', '/v1/organizations', { token: account.token, body: { name } });
  expect(response.status).toBe(201);
  return (await enveloped<Organization>(response)).data;
}

function switchTo(account: TestAccount, organizationId: string): Promise<Response> {
  return app.call('PATCH', '/v1/auth/me', {
    token: account.token,
    body: { current_organization_id: organizationId },
  });
}

async function probe(account: TestAccount): Promise<{ organization_id: string }> {
  const response = await app.call('GET', '/api/v1/vault/probe', { token: account.token });
  expect(response.status).toBe(200);
  return (await response.json()) as { organization_id: string };
}

describe('organizations', () => {
  it('lists the caller’s organizations with the role, a page at a time', async () => {
    const account = await registerAndSignIn(app, 'Edsger Dijkstra');
    const response = await app.call('GET', '/v1/organizations', { token: account.token });
    expect(response.status).toBe(200);
    const body = await enveloped<Organization[]>(response);
    expect(body.data).toEqual([
      {
        id: expect.stringMatching(/^org_[a-z2-7]{24}$/),
        name: "Edsger Dijkstra's organization",
        role: 'owner',
        status: 'active',
        created_at: expect.any(String),
      },
    ]);
    expect(body.meta).toEqual({ total: 1, page: 1, per_page: 20, request_id: expect.any(String) });
  });

  it('creates an organization owned by the caller, without switching to it', async () => {
    const account = await registerAndSignIn(app);
    const before = await probe(account);
    const created = await createOrganization(account, 'Research');
    expect(created).toEqual({
      id: expect.stringMatching(/^org_/),
      name: 'Research',
      role: 'owner',
      status: 'active',
      created_at: app.clock.now().toISOString(),
    });
    const { data } = await enveloped<Organization[]>(
      await app.call('GET', '/v1/organizations', { token: account.token }),
    );
    expect(data.map((organization) => organization.id)).toContain(created.id);
    expect(await probe(account)).toEqual(before);
  });

  it('answers 400 for a blank name', async () => {
    const account = await registerAndSignIn(app);
    const response = await app.call('POST', '/v1/organizations', {
      token: account.token,
      body: { name: ' ' },
    });
    expect(response.status).toBe(400);
    expect((await flatError(response)).message).toContain('name must match pattern');
  });
});

describe('the current organization', () => {
  it('switches at once for the existing token', async () => {
    const account = await registerAndSignIn(app);
    const created = await createOrganization(account, 'Ops');
    const response = await switchTo(account, created.id);
    expect(response.status).toBe(200);
    expect(
      (await enveloped<{ current_organization_id: string }>(response)).data.current_organization_id,
    ).toBe(created.id);
    expect((await probe(account)).organization_id).toBe(created.id);
  });

  it.each([
    ['another user’s organization', 'foreign'],
    ['an organization that does not exist', 'org_aaaaaaaaaaaaaaaaaaaaaaaa'],
  ])('answers 404 for %s, and stays where it was', async (_case, target) => {
    const account = await registerAndSignIn(app);
    const stranger = await registerAndSignIn(app);
    const strangerOrganization = (await probe(stranger)).organization_id;
    const organizationId = target === 'foreign' ? strangerOrganization : target;
    const before = await probe(account);
    const response = await switchTo(account, organizationId);
    expect(response.status).toBe(404);
    expect(await flatError(response)).toEqual({
      error: 'not_found',
      message: `organization ${organizationId} not found`,
    });
    expect(await probe(account)).toEqual(before);
  });

  it('keeps an API key in the organization it was created in', async () => {
    const account = await registerAndSignIn(app);
    const first = (await probe(account)).organization_id;
    const created = await app.call('POST', '/v1/auth/api-keys', {
      token: account.token,
      body: { name: 'first-org', scopes: ['vault:read'] },
    });
    const { key } = (await enveloped<{ key: string }>(created)).data;
    await switchTo(account, (await createOrganization(account, 'Second')).id);
    const response = await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': key } });
    expect(((await response.json()) as { organization_id: string }).organization_id).toBe(first);
  });
});

describe('roles', () => {
  async function memberOf(owner: TestAccount): Promise<TestAccount> {
    const member = await registerAndSignIn(app);
    const organizationId = (await probe(owner)).organization_id;
    await app.database.kysely
      .insertInto('organization_members')
      .values({
        organization_id: organizationId,
        user_id: member.id,
        role: 'member',
        created_at: app.clock.now().toISOString(),
      })
      .execute();
    expect((await switchTo(member, organizationId)).status).toBe(200);
    return member;
  }

  it('gives a member read access but not vault writes', async () => {
    const member = await memberOf(await registerAndSignIn(app));
    expect((await app.call('GET', '/api/v1/vault/probe', { token: member.token })).status).toBe(200);
    const write = await app.call('POST', '/api/v1/vault/probe', { token: member.token });
    expect(write.status).toBe(403);
  });

  it('refuses a member an API key beyond the role, and grants one within it', async () => {
    const member = await memberOf(await registerAndSignIn(app));
    const beyond = await app.call('POST', '/v1/auth/api-keys', {
      token: member.token,
      body: { name: 'too much', scopes: ['vault:read', 'vault:write'] },
    });
    expect(beyond.status).toBe(403);
    expect(await flatError(beyond)).toEqual({
      error: 'forbidden',
      message: 'your role member in this organization does not grant vault:write',
    });
    const within = await app.call('POST', '/v1/auth/api-keys', {
      token: member.token,
      body: { name: 'fine', scopes: ['vault:read', 'stacks:write'] },
    });
    expect(within.status).toBe(201);
  });

  it('narrows a key to the role its owner holds today', async () => {
    const owner = await registerAndSignIn(app);
    const created = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'all', scopes: ['*'] },
    });
    const { key } = (await enveloped<{ key: string }>(created)).data;
    expect((await app.call('POST', '/api/v1/vault/probe', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
    await app.database.kysely
      .updateTable('organization_members')
      .set({ role: 'member' })
      .where('user_id', '=', owner.id)
      .execute();
    expect((await app.call('POST', '/api/v1/vault/probe', { headers: { 'x-api-key': key } })).status).toBe(
      403,
    );
    expect((await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
  });
});
