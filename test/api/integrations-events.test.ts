import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../integrations/events/delivery-worker.js';
import { publishEvent } from '../../integrations/events/publisher.js';
import type { PlatformEventType } from '../../integrations/events/catalogue.js';
import { createLogger } from '../../observability/logger.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startEventReceiver, type EventReceiver } from '../fixtures/event-receiver.js';
import { startIntegrationEventsApp, type IntegrationEventsApp } from '../fixtures/event-receiver-app.js';

type Json = Record<string, unknown>;

let app: IntegrationEventsApp;
let receiver: EventReceiver;
let owner: TestAccount;
let organizationId: string;
let worker: DeliveryWorker;

beforeAll(async () => {
  app = await startIntegrationEventsApp();
  receiver = await startEventReceiver();
  owner = await registerAndSignIn(app);
  organizationId = await app.organizationOf(owner);
  worker = startDeliveryWorker({
    database: app.database,
    store: app.store,
    platformKey: app.platformKey,
    logger: createLogger('silent'),
    clock: app.clock,
    egress: { allowPrivate: true },
    endpoints: { pagerUrl: receiver.url, monitorSites: {} },
    retry: { baseMs: 1_000, capMs: 1_000, maxAttempts: 2 },
    pollIntervalMs: 3_600_000,
  });
});

afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

async function chatIntegration(): Promise<string> {
  return app.addIntegration(
    organizationId,
    {
      type: 'chat',
      name: `chat ${Math.random()}`,
      configuration: { channels: { deployments: '#d', alerts: '#a', logs: '#l' } },
    },
    { webhook_url: `${receiver.url}/hook` },
  );
}

/** Publishes an event to the organization; answers the id of the row bound for `integrationId`. */
async function publish(integrationId: string, type: PlatformEventType, subject: string): Promise<string> {
  await publishEvent(
    { database: app.database, store: app.store, now: () => app.clock.now() },
    { organizationId, type, subject, payload: { subject } },
  );
  await app.clock.advance(1_000);
  const row = await app.database.kysely
    .selectFrom('integration_events')
    .select('id')
    .where('integration_id', '=', integrationId)
    .where('event_type', '=', type)
    .where('subject', '=', subject)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Delivers everything due until the queue settles (each retry waits at most a second). */
async function deliverAll(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await worker.runOnce();
    await app.clock.advance(1_000);
  }
}

async function get(path: string, token = owner.token): Promise<{ status: number; body: unknown }> {
  const response = await app.call('GET', path, { token });
  return { status: response.status, body: await response.json() };
}

describe('GET /api/v1/integrations/:id/events', () => {
  let integrationId: string;
  let delivered: string;
  let failed: string;
  let pending: string;

  beforeAll(async () => {
    integrationId = await chatIntegration();
    receiver.answer({ status: 200 });
    delivered = await publish(integrationId, 'vpc.created', 'vpc-1');
    await deliverAll();
    receiver.answer({ status: 500 });
    failed = await publish(integrationId, 'stack.failed', 'stk-1');
    await deliverAll();
    pending = await publish(integrationId, 'vpc.deleted', 'vpc-1');
  });

  it('lists the events newest first in the documented shape', async () => {
    const { status, body } = await get(`/api/v1/integrations/${integrationId}/events`);
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        id: pending,
        event_type: 'vpc.deleted',
        status: 'pending',
        payload: { subject: 'vpc-1' },
        sent_at: null,
        response_status: null,
      },
      {
        id: failed,
        event_type: 'stack.failed',
        status: 'failed',
        payload: { subject: 'stk-1' },
        sent_at: null,
        response_status: 500,
      },
      {
        id: delivered,
        event_type: 'vpc.created',
        status: 'success',
        payload: { subject: 'vpc-1' },
        sent_at: expect.stringMatching(/^2026-03-01T/),
        response_status: 200,
      },
    ]);
  });

  it.each([
    ['status=success', () => [delivered]],
    ['status=failed', () => [failed]],
    ['status=pending', () => [pending]],
    ['event_type=stack.failed', () => [failed]],
    ['event_type=vpc.created&status=failed', () => []],
    ['limit=1', () => [pending]],
    ['limit=1&offset=1', () => [failed]],
  ])('filters with %s', async (query, expected) => {
    const { body } = await get(`/api/v1/integrations/${integrationId}/events?${query}`);
    expect((body as Json[]).map((event) => event.id)).toEqual(expected());
  });

  it.each(['limit=201', 'limit=0', 'status=dead'])(
    'answers 400 naming the parameter for %s',
    async (query) => {
      const { status, body } = await get(`/api/v1/integrations/${integrationId}/events?${query}`);
      expect(status).toBe(400);
      expect(((body as Json).error as Json).message).toContain(query.split('=')[0]);
    },
  );

  it('puts a failed event back to pending, and the worker sends it again', async () => {
    receiver.answer({ status: 200 });
    const response = await app.call(
      'POST',
      `/api/v1/integrations/${integrationId}/events/${failed}/redeliver`,
      {
        token: owner.token,
      },
    );
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ id: failed, status: 'pending' });
    await deliverAll();
    const { body } = await get(`/api/v1/integrations/${integrationId}/events?event_type=stack.failed`);
    expect(body).toMatchObject([{ id: failed, status: 'success', response_status: 200 }]);
  });

  it('answers 409 when asked to redeliver an event that succeeded, and 404 for an unknown one', async () => {
    const base = `/api/v1/integrations/${integrationId}/events`;
    const done = await app.call('POST', `${base}/${delivered}/redeliver`, { token: owner.token });
    expect(done.status).toBe(409);
    expect(((await done.json()) as { error: Json }).error.message).toContain('only a failed event');
    const unknown = await app.call('POST', `${base}/event-nope/redeliver`, { token: owner.token });
    expect(unknown.status).toBe(404);
  });
});

describe('signed events', () => {
  it('lets a receiver verify each event with the signing secret the API reveals', async () => {
    const integrationId = await chatIntegration();
    receiver.answer({ status: 200 });
    const eventId = await publish(integrationId, 'vpc.available', 'vpc-signed');
    await deliverAll();
    const request = receiver.requests.find((received) => received.headers['webhook-id'] === eventId)!;

    const response = await app.call('POST', `/api/v1/integrations/${integrationId}/webhooks/signing-secret`, {
      token: owner.token,
    });
    expect(response.status).toBe(200);
    const { webhook_id, signing_secret } = (await response.json()) as {
      webhook_id: string;
      signing_secret: string;
    };
    const timestamp = request.headers['webhook-timestamp'] as string;
    const expected = createHmac('sha256', Buffer.from(signing_secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${eventId}.${timestamp}.${request.body}`)
      .digest('base64');
    expect(webhook_id).toBe(`webhook-${integrationId}`);
    expect(request.headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('reveals the signing secret only with the write scope', async () => {
    const integrationId = await chatIntegration();
    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'events reader', scopes: ['integrations:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    const denied = await app.call('POST', `/api/v1/integrations/${integrationId}/webhooks/signing-secret`, {
      headers: { 'x-api-key': key },
    });
    expect(denied.status).toBe(403);
  });
});

describe('access to events', () => {
  it('answers 401 without credentials, 403 without the scope, and 404 for another organization', async () => {
    const integrationId = await chatIntegration();
    const path = `/api/v1/integrations/${integrationId}/events`;
    expect((await app.call('GET', path)).status).toBe(401);

    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'reader', scopes: ['integrations:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    expect((await app.call('GET', path, { headers: { 'x-api-key': key } })).status).toBe(200);
    const denied = await app.call('POST', `${path}/event-x/redeliver`, { headers: { 'x-api-key': key } });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: Json }).error.message).toContain('integrations:write');

    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    const foreign = await get(path, stranger.token);
    expect(foreign.status).toBe(404);
    expect(((foreign.body as Json).error as Json).message).toContain(integrationId);
  });
});
