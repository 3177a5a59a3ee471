import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../integrations/credentials.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startIntegrationsApp, type IntegrationsApp } from '../fixtures/provider-integrations-app.js';

let app: IntegrationsApp;
let owner: TestAccount;

const PAGER_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const MONITOR_KEY = 'dd-api-key-valid';

beforeAll(async () => {
  app = await startIntegrationsApp();
  owner = await registerAndSignIn(app);
  const { codehost, edgenet, monitor, monitorEu, pager, chat } = app.providers;
  codehost.installations.set('77', ['acme/api', 'acme/web', 'acme/docs']);
  codehost.installations.set('78', ['other/repo']);
  codehost.tokens.set('ghp_expired', { login: 'ada', repositories: [], expired: true });
  edgenet.tokens.set('cf-active', {
    id: 'tok-1',
    status: 'active',
    zones: [
      { id: 'zone-a', name: 'example.com' },
      { id: 'zone-b', name: 'example.org' },
    ],
  });
  edgenet.tokens.set('cf-expired', { id: 'tok-2', status: 'expired', zones: [] });
  monitor.apiKeys.add(MONITOR_KEY);
  monitorEu.apiKeys.add('dd-eu-key');
  pager.routingKeys.add(PAGER_KEY);
  chat.webhooks.add('T9/B9/chat');
  chat.channels.add('#deployments');
  chat.channels.add('#alerts');
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;

async function call(method: string, path: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, path, { token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json, text };
}

function errorOf(response: { body: Json }): string {
  return JSON.stringify(response.body.error);
}

describe('codehost', () => {
  it('connects an installation, creating a signed webhook on each repository', async () => {
    const created = await call('POST', '/api/v1/integrations/codehost', {
      name: 'source',
      installation_id: '77',
      repositories: ['acme/api', 'acme/web'],
      events: ['push', 'pull_request'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'source',
      type: 'codehost',
      status: 'connected',
      webhook_url: `${app.config.http.publicUrl.href}/webhooks/codehost/${id}`,
      webhook_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.any(String),
    });
    const hooks = app.providers.codehost.hooks.filter((hook) => hook.config.url.endsWith(id));
    expect(hooks.map((hook) => hook.repository).sort()).toEqual(['acme/api', 'acme/web']);
    for (const hook of hooks) {
      expect(hook.config.secret).toBe(created.body.webhook_secret);
      expect(hook.events).toEqual(['push', 'pull_request']);
    }
    expect(await readCredentials(app.database, app.platformKey, id)).toEqual({
      webhook_secret: created.body.webhook_secret,
    });
    const detail = await call('GET', `/api/v1/integrations/${id}`);
    expect(detail.body).toMatchObject({
      status: 'connected',
      credentials_valid: true,
      last_sync: expect.any(String),
      configuration: {
        installation_id: '77',
        organization: 'acme',
        repositories: ['acme/api', 'acme/web'],
        webhook_id: expect.stringMatching(/^webhook-/),
        webhook_events: ['push', 'pull_request'],
      },
    });
    expect(detail.text).not.toContain(created.body.webhook_secret as string);

    const again = await call('POST', '/api/v1/integrations/codehost', {
      name: 'source again',
      installation_id: '77',
      repositories: ['acme/docs'],
      events: ['push'],
    });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toContain('provider account');

    const sync = await call('POST', `/api/v1/integrations/${id}/codehost/sync`, { full_sync: true });
    expect(sync.status).toBe(202);
    expect(sync.body).toEqual({ sync_id: expect.stringMatching(/^sync-/), status: 'in-progress' });
    await app.platform.idle();
    const finished = await call(
      'GET',
      `/api/v1/integrations/${id}/codehost/sync/${sync.body.sync_id as string}`,
    );
    expect(finished.body).toMatchObject({
      status: 'success',
      full_sync: true,
      repositories: ['acme/api', 'acme/web', 'acme/docs'],
      completed_at: expect.any(String),
    });

    expect((await call('DELETE', `/api/v1/integrations/${id}`)).status).toBe(204);
    await eventually(() =>
      expect(app.providers.codehost.hooks.filter((hook) => hook.config.url.endsWith(id))).toEqual([]),
    );
  });

  it.each([
    [
      'a repository the installation does not reach',
      { installation_id: '78', repositories: ['acme/api'], events: ['push'] },
      400,
      'repositories',
    ],
    [
      'an installation that does not exist',
      { installation_id: '99', repositories: ['a/b'], events: ['push'] },
      400,
      'installation_id',
    ],
    [
      'an event that cannot be subscribed',
      { installation_id: '78', repositories: ['other/repo'], events: ['fork'] },
      422,
      'events',
    ],
    [
      'a repository name without an owner',
      { installation_id: '78', repositories: ['repo'], events: ['push'] },
      422,
      'repositories',
    ],
  ])('refuses %s, naming the field', async (_case, body, status, field) => {
    const response = await call('POST', '/api/v1/integrations/codehost', { name: 'refused', ...body });
    expect(response.status).toBe(status);
    expect(errorOf(response)).toContain(field);
    expect((await call('GET', '/api/v1/integrations?type=codehost')).body).toEqual([]);
  });

  it('answers 422 to a sync of an integration that is not codehost', async () => {
    const pager = await call('POST', '/api/v1/integrations/pager', {
      name: 'not codehost',
      integration_key: PAGER_KEY,
      service_id: 'PSVC001',
    });
    const refused = await call('POST', `/api/v1/integrations/${pager.body.id as string}/codehost/sync`, {});
    expect(refused.status).toBe(422);
    await call('DELETE', `/api/v1/integrations/${pager.body.id as string}`);
  });

  it('reports expired when the provider says the token is bad', async () => {
    const created = await call('POST', '/api/v1/integrations', {
      name: 'old token',
      type: 'codehost',
      credentials: { token: 'ghp_expired' },
      configuration: { repositories: ['acme/api'] },
    });
    const id = created.body.id as string;
    const detail = await eventually(async () => {
      const read = await call('GET', `/api/v1/integrations/${id}`);
      expect(read.body.status).toBe('expired');
      return read;
    });
    expect(detail.body.last_error).toContain('Bad credentials');
    await call('DELETE', `/api/v1/integrations/${id}`);
  });
});

describe('edgenet, monitor, pager and chat', () => {
  it('connects an edgenet token and answers the zone ids', async () => {
    const created = await call('POST', '/api/v1/integrations/edgenet', {
      name: 'dns',
      api_token: 'cf-active',
      zones: ['example.com', 'example.org'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'edgenet',
      status: 'connected',
      zones: [
        { id: 'zone-a', name: 'example.com', status: 'active' },
        { id: 'zone-b', name: 'example.org', status: 'active' },
      ],
    });
    const request = app.providers.edgenet.requests.find((entry) => entry.path === '/user/tokens/verify');
    expect(request?.headers.authorization).toBe('Bearer cf-active');
    await call('DELETE', `/api/v1/integrations/${created.body.id as string}`);
  });

  it('connects a monitor account on the site chosen', async () => {
    const created = await call('POST', '/api/v1/integrations/monitor', {
      name: 'metrics',
      api_key: 'dd-eu-key',
      app_key: 'dd-app',
      site: 'datadoghq.eu',
      tags: ['env:prod', 'team:core'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'monitor',
      status: 'connected',
      tags: ['env:prod', 'team:core'],
    });
    const validate = app.providers.monitorEu.requests.at(-1);
    expect(validate?.path).toBe('/api/v1/validate');
    expect(validate?.headers['dd-application-key']).toBe('dd-app');
    await call('DELETE', `/api/v1/integrations/${created.body.id as string}`);
  });

  it('connects a pager service after checking the key form only', async () => {
    const created = await call('POST', '/api/v1/integrations/pager', {
      name: 'on call',
      integration_key: PAGER_KEY,
      service_id: 'PSVC123',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'pager', status: 'connected', service_id: 'PSVC123' });
    expect(app.providers.pager.events).toEqual([]);
    await call('DELETE', `/api/v1/integrations/${created.body.id as string}`);
  });

  it('connects a chat webhook after a message to each channel', async () => {
    const created = await call('POST', '/api/v1/integrations/chat', {
      name: 'team',
      webhook_url: app.providers.chat.webhookUrl('T9/B9/chat'),
      channels: { deployments: '#deployments', alerts: '#alerts' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'chat',
      status: 'connected',
      channels: { deployments: '#deployments', alerts: '#alerts' },
    });
    expect(app.providers.chat.messages.map((message) => message.channel)).toEqual(
      expect.arrayContaining(['#deployments', '#alerts']),
    );
    await call('DELETE', `/api/v1/integrations/${created.body.id as string}`);
  });

  it.each([
    [
      'an edgenet token the provider does not know',
      '/edgenet',
      { api_token: 'nope', zones: [] },
      400,
      'api_token',
    ],
    ['an expired edgenet token', '/edgenet', { api_token: 'cf-expired', zones: [] }, 400, 'expired'],
    [
      'an edgenet zone the token does not reach',
      '/edgenet',
      { api_token: 'cf-active', zones: ['example.net'] },
      400,
      'zones',
    ],
    [
      'a monitor key the site refuses',
      '/monitor',
      { api_key: 'wrong', site: 'datadoghq.com' },
      400,
      'api_key',
    ],
    [
      'a monitor site that does not exist',
      '/monitor',
      { api_key: MONITOR_KEY, site: 'example.com' },
      422,
      'site',
    ],
    [
      'a monitor tag not written key:value',
      '/monitor',
      { api_key: MONITOR_KEY, site: 'datadoghq.com', tags: ['prod'] },
      422,
      'tags',
    ],
    [
      'a pager key of the wrong form',
      '/pager',
      { integration_key: 'short', service_id: 'P1' },
      400,
      'integration_key',
    ],
    [
      'a chat webhook that does not exist',
      '/chat',
      { webhook_url: 'WEBHOOK:T0/B0/none', channels: {} },
      400,
      'webhook_url',
    ],
    [
      'a chat channel that does not exist',
      '/chat',
      { webhook_url: 'WEBHOOK:T9/B9/chat', channels: { logs: '#nowhere' } },
      400,
      'channels',
    ],
    [
      'a chat purpose that does not exist',
      '/chat',
      { webhook_url: 'WEBHOOK:T9/B9/chat', channels: { sales: '#alerts' } },
      400,
      'channels',
    ],
  ])('refuses %s, naming it', async (_case, path, body, status, field) => {
    const withUrl = Object.fromEntries(
      Object.entries(body).map(([key, value]) => [
        key,
        typeof value === 'string' && value.startsWith('WEBHOOK:')
          ? app.providers.chat.webhookUrl(value.slice('WEBHOOK:'.length))
          : value,
      ]),
    );
    const response = await call('POST', `/api/v1/integrations${path}`, { name: 'refused', ...withUrl });
    expect(response.status).toBe(status);
    expect(errorOf(response)).toContain(field);
    expect((await call('GET', '/api/v1/integrations')).body).toEqual([]);
  });
});

describe('tests and health', () => {
  it('tests a pager with a trigger resolved under the same dedup key', async () => {
    const created = await call('POST', '/api/v1/integrations/pager', {
      name: 'tested pager',
      integration_key: PAGER_KEY,
      service_id: 'PSVC9',
    });
    const id = created.body.id as string;
    const started = await call('POST', `/api/v1/integrations/${id}/test`);
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      test_id: expect.stringMatching(/^test-/),
      integration_id: id,
      status: 'in-progress',
      started_at: expect.any(String),
    });
    await app.platform.idle();
    const result = await call('GET', `/api/v1/integrations/${id}/test/${started.body.test_id as string}`);
    expect(result.body).toEqual({
      test_id: started.body.test_id,
      integration_id: id,
      status: 'passed',
      result: { connection: 'ok', authentication: 'ok', permissions: 'ok', latency_ms: expect.any(Number) },
      errors: [],
      started_at: started.body.started_at,
      completed_at: expect.any(String),
    });
    const [trigger, resolve] = app.providers.pager.events.slice(-2);
    expect(trigger).toMatchObject({ routing_key: PAGER_KEY, event_action: 'trigger' });
    expect(resolve).toMatchObject({ event_action: 'resolve', dedup_key: trigger?.dedup_key });
    expect((await call('GET', `/api/v1/integrations/${id}/test/test-0000`)).status).toBe(404);
    await call('DELETE', `/api/v1/integrations/${id}`);
  });

  it('reports a failed test and a degraded health once the provider refuses the credentials', async () => {
    app.providers.edgenet.tokens.set('cf-revocable', { id: 'tok-9', status: 'active', zones: [] });
    const created = await call('POST', '/api/v1/integrations/edgenet', {
      name: 'revocable',
      api_token: 'cf-revocable',
      zones: [],
    });
    const id = created.body.id as string;
    await call('POST', `/api/v1/integrations/${id}/test`);
    await app.platform.idle();
    const healthy = await call('GET', `/api/v1/integrations/${id}/health`);
    expect(healthy.body).toEqual({
      integration_id: id,
      status: 'healthy',
      last_sync: expect.any(String),
      sync_status: 'success',
      error_count: 0,
      recent_errors: [],
      uptime_percent: 100,
      average_response_time_ms: expect.any(Number),
      event_queue_size: 0,
    });

    app.providers.edgenet.tokens.delete('cf-revocable');
    const failed = await call('POST', `/api/v1/integrations/${id}/test`);
    await app.platform.idle();
    const result = await call('GET', `/api/v1/integrations/${id}/test/${failed.body.test_id as string}`);
    expect(result.body).toMatchObject({
      status: 'failed',
      result: { connection: 'ok', authentication: 'rejected' },
      errors: [expect.stringContaining('Invalid API Token')],
    });
    const degraded = await call('GET', `/api/v1/integrations/${id}/health`);
    expect(degraded.body).toMatchObject({
      status: 'degraded',
      uptime_percent: 50,
      recent_errors: [expect.stringContaining('Invalid API Token')],
    });
    await call('DELETE', `/api/v1/integrations/${id}`);
  });
});
