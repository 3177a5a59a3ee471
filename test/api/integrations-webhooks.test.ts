import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startIntegrationEventsApp, type IntegrationEventsApp } from '../fixtures/event-receiver-app.js';

type Json = Record<string, unknown>;

const WEBHOOK_SECRET = 'a webhook secret of the integration';

let app: IntegrationEventsApp;
let owner: TestAccount;
let organizationId: string;

beforeAll(async () => {
  app = await startIntegrationEventsApp();
  owner = await registerAndSignIn(app);
  organizationId = await app.organizationOf(owner);
});

afterAll(() => app.close());

async function codehostIntegration(): Promise<string> {
  return app.addIntegration(
    organizationId,
    {
      type: 'codehost',
      name: `code ${randomUUID()}`,
      configuration: {
        repositories: ['octo/app'],
        webhook_id: `webhook-${randomUUID()}`,
        webhook_events: ['push', 'pull_request'],
      },
    },
    { token: 'ghp_example', webhook_secret: WEBHOOK_SECRET },
  );
}

interface Delivery {
  event?: string;
  deliveryId?: string;
  body?: string;
  secret?: string;
  signature?: string;
}

function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function deliver(
  integrationId: string,
  delivery: Delivery = {},
): Promise<{ status: number; body: Json }> {
  const body =
    delivery.body ?? JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'octo/app' } });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': delivery.event ?? 'push',
    'x-github-delivery': delivery.deliveryId ?? randomUUID(),
    'user-agent': 'GitHub-Hookshot/abc123',
  };
  const signature = delivery.signature ?? signatureOf(delivery.secret ?? WEBHOOK_SECRET, body);
  if (signature !== '') headers['x-hub-signature-256'] = signature;
  const response = await fetch(`${app.url}/webhooks/codehost/${integrationId}`, {
    method: 'POST',
    headers,
    body,
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function attemptsOf(integrationId: string, query = ''): Promise<Json[]> {
  const response = await app.call(
    'POST',
    `/api/v1/integrations/${integrationId}/webhooks/delivery-attempts${query}`,
    {
      token: owner.token,
    },
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Json[];
}

describe('inbound code host deliveries', () => {
  it('accepts a signed delivery of a subscribed event and records it', async () => {
    const integrationId = await codehostIntegration();
    const deliveryId = randomUUID();
    const before = app.deliveries.length;

    const answer = await deliver(integrationId, { deliveryId });

    expect(answer).toEqual({ status: 200, body: { status: 'accepted', delivery_id: deliveryId } });
    expect(app.deliveries.slice(before)).toMatchObject([
      { deliveryId, event: 'push', payload: { ref: 'refs/heads/main' } },
    ]);
    expect(await attemptsOf(integrationId)).toEqual([
      {
        id: expect.stringMatching(/^attempt-/),
        webhook_id: expect.stringMatching(/^webhook-/),
        event: 'push',
        status: 'success',
        status_code: 200,
        duration_ms: expect.any(Number),
        timestamp: '2026-03-01T09:00:00.000Z',
      },
    ]);
  });

  it('answers a replayed delivery id without processing it twice', async () => {
    const integrationId = await codehostIntegration();
    const deliveryId = randomUUID();
    const before = app.deliveries.length;

    await deliver(integrationId, { deliveryId });
    const replay = await deliver(integrationId, { deliveryId });

    expect(replay).toEqual({ status: 200, body: { status: 'duplicate', delivery_id: deliveryId } });
    expect(app.deliveries.length - before).toBe(1);
    expect(await attemptsOf(integrationId)).toHaveLength(1);
  });

  it.each([
    ['a missing signature', { signature: '' }],
    ['a signature made with another secret', { secret: 'not the secret' }],
    ['a signature of another body', { signature: signatureOf(WEBHOOK_SECRET, '{"ref":"refs/heads/evil"}') }],
    ['a malformed signature', { signature: 'sha256=zz' }],
  ])('refuses %s with 401 and records only a failed attempt', async (_case, delivery: Delivery) => {
    const integrationId = await codehostIntegration();
    const before = app.deliveries.length;

    const answer = await deliver(integrationId, delivery);

    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatchObject({ code: 'invalid_signature' });
    expect(app.deliveries.length).toBe(before);
    expect(await attemptsOf(integrationId)).toMatchObject([
      { status: 'failed', status_code: 401, event: 'push' },
    ]);
  });

  it('still processes a genuine delivery whose id a forged request used first', async () => {
    const integrationId = await codehostIntegration();
    const deliveryId = randomUUID();

    expect((await deliver(integrationId, { deliveryId, secret: 'forged' })).status).toBe(401);
    expect(await deliver(integrationId, { deliveryId })).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
  });

  it('refuses an event the integration is not subscribed to with 422 naming the subscriptions', async () => {
    const integrationId = await codehostIntegration();

    const answer = await deliver(integrationId, { event: 'release' });

    expect(answer.status).toBe(422);
    expect((answer.body.error as Json).message).toBe(
      'this integration is not subscribed to release events; it takes push, pull_request',
    );
    expect(await attemptsOf(integrationId)).toMatchObject([
      { event: 'release', status: 'failed', status_code: 422 },
    ]);
  });

  it('answers a ping', async () => {
    const integrationId = await codehostIntegration();
    expect(
      await deliver(integrationId, { event: 'ping', body: '{"zen":"Design for failure."}' }),
    ).toMatchObject({
      status: 200,
      body: { status: 'pong' },
    });
  });

  it.each([
    ['an unknown integration', () => Promise.resolve(randomUUID())],
    [
      'an integration that is not a code host',
      () =>
        app.addIntegration(
          organizationId,
          { type: 'pager', name: `pager ${randomUUID()}` },
          { webhook_secret: WEBHOOK_SECRET },
        ),
    ],
  ])('answers 404 in the general style for %s', async (_case, target) => {
    const answer = await deliver(await target());
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({
      error: { code: 'not_found' },
      meta: { request_id: expect.any(String) },
    });
  });
});

describe('GET /api/v1/integrations/:id/webhooks', () => {
  it("lists a code host's inbound webhook at {base_url}/webhooks/codehost/<id>", async () => {
    const integrationId = await codehostIntegration();
    const response = await app.call('GET', `/api/v1/integrations/${integrationId}/webhooks`, {
      token: owner.token,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      {
        id: expect.stringMatching(/^webhook-/),
        url: `${app.url}/webhooks/codehost/${integrationId}`,
        events: ['push', 'pull_request'],
        enabled: true,
        created_at: expect.any(String),
      },
    ]);
  });

  it("lists a chat integration's outbound event webhook without its secret URL", async () => {
    const integrationId = await app.addIntegration(
      organizationId,
      { type: 'chat', name: `chat ${randomUUID()}`, configuration: { channels: { alerts: '#alerts' } } },
      { webhook_url: 'https://hooks.slack.com/services/T0/B0/secret-token' },
    );
    const response = await app.call('GET', `/api/v1/integrations/${integrationId}/webhooks`, {
      token: owner.token,
    });
    const webhooks = (await response.json()) as Json[];
    expect(webhooks).toMatchObject([
      {
        id: `webhook-${integrationId}`,
        url: 'chat:events',
        enabled: true,
        events: expect.arrayContaining(['stack.failed']),
      },
    ]);
    expect(JSON.stringify(webhooks)).not.toContain('secret-token');
  });
});

describe('POST /api/v1/integrations/:id/webhooks/delivery-attempts', () => {
  it.each([
    ['', 3],
    ['?status=success', 2],
    ['?status=failed', 1],
    ['?limit=2', 2],
  ])('lists attempts with %s', async (query, count) => {
    const integrationId = await codehostIntegration();
    await deliver(integrationId);
    await deliver(integrationId, { event: 'pull_request' });
    await deliver(integrationId, { secret: 'wrong' });
    expect(await attemptsOf(integrationId, query)).toHaveLength(count);
  });

  it('answers 400 naming limit above 200', async () => {
    const integrationId = await codehostIntegration();
    const response = await app.call(
      'POST',
      `/api/v1/integrations/${integrationId}/webhooks/delivery-attempts?limit=201`,
      {
        token: owner.token,
      },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: Json }).error.message).toContain('limit');
  });

  it('answers 401 without credentials, 403 without the scope, and 404 for another organization', async () => {
    const integrationId = await codehostIntegration();
    const path = `/api/v1/integrations/${integrationId}/webhooks`;
    expect((await app.call('GET', path)).status).toBe(401);
    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'vpc reader', scopes: ['vpc:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    expect((await app.call('GET', path, { headers: { 'x-api-key': key } })).status).toBe(403);
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    expect((await app.call('GET', path, { token: stranger.token })).status).toBe(404);
    expect((await app.call('POST', `${path}/delivery-attempts`, { token: stranger.token })).status).toBe(404);
  });
});
