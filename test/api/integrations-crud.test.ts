import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../integrations/credentials.js';
import { INTEGRATION } from '../../crds/integration.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startIntegrationsApp, type IntegrationsApp } from '../fixtures/provider-integrations-app.js';

let app: IntegrationsApp;
let owner: TestAccount;
const WEBHOOK_TOKEN = 'T000/B000/crudsecretwebhooktoken';

beforeAll(async () => {
  app = await startIntegrationsApp();
  owner = await registerAndSignIn(app);
  app.providers.chat.webhooks.add(WEBHOOK_TOKEN);
  app.providers.chat.channels.add('#deployments');
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;

async function call(method: string, path: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, path, { token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json, text };
}

/** A valid chat create; `webhookUrl` defaults to the local chat server's known webhook. */
function chatBody(name: string, webhookUrl?: string) {
  return {
    name,
    type: 'chat',
    credentials: { webhook_url: webhookUrl ?? app.providers.chat.webhookUrl(WEBHOOK_TOKEN) },
    configuration: { channels: { deployments: '#deployments' } },
  };
}

/** Creates a chat integration on a webhook of its own (one webhook is one provider account) and waits until connected. */
async function connected(name: string): Promise<string> {
  const token = `T1/B1/${name.replace(/\W/g, '')}`;
  app.providers.chat.webhooks.add(token);
  const created = await call(
    'POST',
    '/api/v1/integrations',
    chatBody(name, app.providers.chat.webhookUrl(token)),
  );
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await eventually(async () =>
    expect((await call('GET', `/api/v1/integrations/${id}`)).body.status).toBe('connected'),
  );
  return id;
}

async function deleteAll(token = owner.token) {
  const list = await call('GET', '/api/v1/integrations?limit=100', undefined, token);
  for (const item of list.body as unknown as Json[]) {
    await call('DELETE', `/api/v1/integrations/${item.id as string}`, undefined, token);
  }
  await eventually(async () =>
    expect((await call('GET', '/api/v1/integrations', undefined, token)).body).toEqual([]),
  );
}

/** A chat create refused before any provider is asked. */
const CHAT = { name: 'x', type: 'chat', credentials: { webhook_url: 'https://chat.example/services/x' } };

describe('generic create', () => {
  it('answers 201 pending, then the controller verifies with the provider and connects it', async () => {
    const created = await call('POST', '/api/v1/integrations', chatBody('team chat'));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'team chat',
      type: 'chat',
      status: 'pending',
      configuration: { channels: { deployments: '#deployments' } },
      created_at: expect.any(String),
    });
    const id = created.body.id as string;
    const detail = await eventually(async () => {
      const read = await call('GET', `/api/v1/integrations/${id}`);
      expect(read.body.status).toBe('connected');
      return read;
    });
    expect(detail.body).toMatchObject({
      credentials_valid: true,
      last_error: null,
      error_count: 0,
      enabled: true,
    });
    expect(app.providers.chat.messages.at(-1)).toMatchObject({
      token: WEBHOOK_TOKEN,
      channel: '#deployments',
    });
    await deleteAll();
  });

  it('keeps the credentials sealed in the data plane and never returns them', async () => {
    const created = await call('POST', '/api/v1/integrations', chatBody('sealed'));
    const id = created.body.id as string;
    await eventually(async () =>
      expect((await call('GET', `/api/v1/integrations/${id}`)).body.status).toBe('connected'),
    );
    const row = await app.database.kysely
      .selectFrom('integration_credentials')
      .selectAll()
      .where('integration_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.sealed_credentials).not.toContain('crudsecretwebhooktoken');
    expect(await readCredentials(app.database, app.platformKey, id)).toEqual({
      webhook_url: app.providers.chat.webhookUrl(WEBHOOK_TOKEN),
    });
    const objects = await app.store.list(INTEGRATION, {});
    expect(objects.items.map((item) => item.metadata.name)).toContain(id);
    expect(JSON.stringify(objects.items)).not.toContain('crudsecretwebhooktoken');
    for (const path of [`/api/v1/integrations/${id}`, '/api/v1/integrations']) {
      expect((await call('GET', path)).text).not.toContain('crudsecretwebhooktoken');
    }
    expect(JSON.stringify(app.logLines)).not.toContain('crudsecretwebhooktoken');
    await deleteAll();
  });

  it('moves to error naming the provider answer when the provider rejects the credentials', async () => {
    const created = await call(
      'POST',
      '/api/v1/integrations',
      chatBody('revoked', app.providers.chat.webhookUrl('T0/B0/unknown')),
    );
    const id = created.body.id as string;
    const detail = await eventually(async () => {
      const read = await call('GET', `/api/v1/integrations/${id}`);
      expect(read.body.status).toBe('error');
      return read;
    });
    expect(detail.body.last_error).toContain('no_service');
    expect(detail.body).toMatchObject({ credentials_valid: false, error_count: 1 });
    await deleteAll();
  });

  it.each([
    ['an unknown type', { name: 'x', type: 'fax', credentials: {} }, 422, 'type'],
    [
      'a configuration key the type does not have',
      { ...CHAT, configuration: { zones: ['a.com'] } },
      422,
      'configuration.zones',
    ],
    [
      'a chat channel purpose that does not exist',
      { ...CHAT, configuration: { channels: { sales: '#s' } } },
      422,
      'configuration.channels.sales',
    ],
    ['missing credentials', { name: 'x', type: 'chat', credentials: {} }, 400, 'credentials.webhook_url'],
    [
      'a credential the type does not have',
      { name: 'x', type: 'edgenet', credentials: { api_token: 't', password: 'p' } },
      400,
      'credentials.password',
    ],
    [
      'a malformed pager key',
      { name: 'x', type: 'pager', credentials: { integration_key: 'short' } },
      400,
      'credentials.integration_key',
    ],
    ['a body field that does not exist', { ...CHAT, owner: 'me' }, 400, 'owner'],
  ])('refuses %s, naming it', async (_case, body, status, field) => {
    const response = await call('POST', '/api/v1/integrations', body);
    expect(response.status).toBe(status);
    expect(JSON.stringify(response.body.error)).toContain(field);
    expect((await call('GET', '/api/v1/integrations')).body).toEqual([]);
  });

  it('moves a second integration of the same provider account to error', async () => {
    const first = await connected('first');
    const second = await call(
      'POST',
      '/api/v1/integrations',
      chatBody('second', app.providers.chat.webhookUrl('T1/B1/first')),
    );
    const detail = await eventually(async () => {
      const read = await call('GET', `/api/v1/integrations/${second.body.id as string}`);
      expect(read.body.status).toBe('error');
      return read;
    });
    expect(detail.body.last_error).toContain('already uses this provider account');
    expect((await call('GET', `/api/v1/integrations/${first}`)).body.status).toBe('connected');
    await deleteAll();
  });

  it('answers 409 for a second integration with the same name', async () => {
    await connected('unique name');
    const again = await call('POST', '/api/v1/integrations', chatBody('unique name'));
    expect(again.status).toBe(409);
    expect((again.body.error as Json).message).toContain('unique name');
    await deleteAll();
  });
});

describe('reading, changing and deleting', () => {
  it('lists with type and status filters, limit and offset', async () => {
    const first = await connected('one');
    const second = await connected('two');
    await call('PATCH', `/api/v1/integrations/${second}`, { enabled: false });
    await eventually(async () =>
      expect((await call('GET', `/api/v1/integrations/${second}`)).body.status).toBe('disconnected'),
    );
    const ids = async (query: string) =>
      ((await call('GET', `/api/v1/integrations${query}`)).body as unknown as Json[]).map((row) => row.id);
    const all = await ids('');
    expect([...all].sort()).toEqual([first, second].sort());
    expect(await ids('?status=connected')).toEqual([first]);
    expect(await ids('?status=disconnected')).toEqual([second]);
    expect(await ids('?type=pager')).toEqual([]);
    expect(await ids('?limit=1&offset=1')).toEqual([all[1]]);
    expect((await call('GET', '/api/v1/integrations?limit=101')).status).toBe(400);
    await deleteAll();
  });

  it('disconnects when disabled and verifies again when enabled', async () => {
    const id = await connected('toggle');
    const before = app.providers.chat.messages.length;
    const patched = await call('PATCH', `/api/v1/integrations/${id}`, { enabled: false, name: 'toggled' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ id, name: 'toggled', updated_at: expect.any(String) });
    await eventually(async () =>
      expect((await call('GET', `/api/v1/integrations/${id}`)).body.status).toBe('disconnected'),
    );
    await call('PATCH', `/api/v1/integrations/${id}`, { enabled: true });
    await eventually(async () =>
      expect((await call('GET', `/api/v1/integrations/${id}`)).body.status).toBe('connected'),
    );
    expect(app.providers.chat.messages.length).toBeGreaterThan(before);
    await deleteAll();
  });

  it('refuses a configuration change that does not fit the type with 422', async () => {
    const id = await connected('strict');
    const refused = await call('PATCH', `/api/v1/integrations/${id}`, {
      configuration: { site: 'datadoghq.com' },
    });
    expect(refused.status).toBe(422);
    expect((refused.body.error as Json).message).toContain('configuration.site');
    await deleteAll();
  });

  it('deletes with 204 and destroys the credentials', async () => {
    const id = await connected('doomed');
    expect((await call('DELETE', `/api/v1/integrations/${id}`)).status).toBe(204);
    await eventually(async () => expect((await call('GET', `/api/v1/integrations/${id}`)).status).toBe(404));
    await eventually(async () =>
      expect(await readCredentials(app.database, app.platformKey, id)).toBeUndefined(),
    );
  });

  it('answers 401 without credentials, 403 without the scope, and 404 for another organization', async () => {
    expect((await app.call('GET', '/api/v1/integrations')).status).toBe(401);
    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'reader', scopes: ['integrations:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    const listed = await app.call('GET', '/api/v1/integrations', { headers: { 'x-api-key': key } });
    expect(listed.status).toBe(200);
    const denied = await app.call('POST', '/api/v1/integrations', {
      headers: { 'x-api-key': key },
      body: chatBody('x'),
    });
    expect(denied.status).toBe(403);
    const id = await connected('mine');
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    for (const [method, path] of [
      ['GET', `/api/v1/integrations/${id}`],
      ['PATCH', `/api/v1/integrations/${id}`],
      ['DELETE', `/api/v1/integrations/${id}`],
      ['POST', `/api/v1/integrations/${id}/test`],
      ['GET', `/api/v1/integrations/${id}/health`],
    ] as const) {
      const response = await call(
        method,
        path,
        method === 'PATCH' ? { name: 'stolen' } : undefined,
        stranger.token,
      );
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    await deleteAll();
  });
});
