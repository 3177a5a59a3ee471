import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimEvent, findEvent, redeliverEvent } from '../../integrations/events/event-records.js';
import { publishEvent } from '../../integrations/events/publisher.js';
import { signingSecretOf } from '../../integrations/events/signing-secrets.js';
import { startEventReceiver, type EventReceiver } from '../fixtures/event-receiver.js';
import { startEventPlatform, TEST_RETRY, type EventPlatform } from '../fixtures/event-receiver-platform.js';
import { eventually } from '../fixtures/eventually.js';

let platform: EventPlatform;
let receiver: EventReceiver;

beforeEach(async () => {
  platform = await startEventPlatform();
  receiver = await startEventReceiver();
});

afterEach(async () => {
  await platform.close();
  await receiver.close();
});

async function chatIntegration(): Promise<string> {
  return platform.addIntegration(
    {
      type: 'chat',
      name: 'ops chat',
      configuration: { channels: { deployments: '#deploys', alerts: '#alerts' } },
    },
    { webhook_url: `${receiver.url}/services/T000/B000/XXXX` },
  );
}

async function publishVpcCreated(subject = 'vpc-1'): Promise<string> {
  const [id] = await publishEvent(
    { database: platform.database, store: platform.store, now: () => platform.clock.now() },
    { organizationId: platform.organizationId, type: 'vpc.created', subject, payload: { name: 'main' } },
  );
  return id!;
}

async function event(integrationId: string, eventId: string) {
  return (await findEvent(platform.database, integrationId, eventId))!;
}

async function attempts(integrationId: string) {
  return platform.database.kysely
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .orderBy('timestamp')
    .execute();
}

/** Runs a pass, then lets the longest possible backoff pass, `times` over. */
async function runPasses(worker: { runOnce(): Promise<number> }, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await worker.runOnce();
    await platform.clock.advance(TEST_RETRY.capMs);
  }
}

describe('event delivery', () => {
  it('delivers to a receiver that fails three times exactly once more, after the retries', async () => {
    receiver.answer({ status: 500 }, { status: 502 }, { status: 503 }, { status: 200 });
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    const worker = platform.startWorker();

    await runPasses(worker, 10);

    expect(receiver.requests).toHaveLength(4);
    expect(receiver.accepted()).toHaveLength(1);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(
      new Set([eventId]),
    );
    expect(await event(integrationId, eventId)).toMatchObject({
      status: 'success',
      attempts: 4,
      response_status: 200,
    });
    expect((await attempts(integrationId)).map((attempt) => [attempt.status, attempt.status_code])).toEqual([
      ['failed', 500],
      ['failed', 502],
      ['failed', 503],
      ['success', 200],
    ]);
  });

  it('sends the chat message to the channel of the event purpose', async () => {
    await chatIntegration();
    await publishVpcCreated('vpc-42');
    await platform.startWorker().runOnce();

    expect(receiver.requests[0]!.path).toBe('/services/T000/B000/XXXX');
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual({
      text: '[vpc.created] A VPC was created: vpc-42',
      channel: '#deploys',
    });
  });

  it.each([
    ['delay seconds', () => '120'],
    ['an HTTP date', () => new Date(platform.clock.now().getTime() + 120_000).toUTCString()],
  ])('waits for Retry-After given as %s before the next attempt', async (_form, retryAfter) => {
    receiver.answer({ status: 429, headers: { 'retry-after': retryAfter() } }, { status: 200 });
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    const worker = platform.startWorker();

    await worker.runOnce();
    await platform.clock.advance(119_000);
    await worker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    expect(await event(integrationId, eventId)).toMatchObject({ status: 'failed', response_status: 429 });

    await platform.clock.advance(1_000);
    await worker.runOnce();
    expect(receiver.accepted()).toHaveLength(1);
    expect(await event(integrationId, eventId)).toMatchObject({ status: 'success' });
  });

  it('spreads retries with full jitter below an exponentially growing ceiling', async () => {
    receiver.answer({ status: 500 });
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    const worker = platform.startWorker({ random: () => 0.5 });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const before = platform.clock.now().getTime();
      await worker.runOnce();
      const next = Date.parse((await event(integrationId, eventId)).next_attempt_at);
      waits.push(next - before);
      await platform.clock.advance(next - before);
    }
    expect(waits).toEqual([500, 1_000, 2_000, 4_000]);
  });

  it('gives the event up as dead after the configured attempts, and redelivery sends it again', async () => {
    receiver.answer({ status: 503 });
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    const worker = platform.startWorker({ retry: { ...TEST_RETRY, maxAttempts: 3 } });

    await runPasses(worker, 6);
    expect(receiver.requests).toHaveLength(3);
    expect(await event(integrationId, eventId)).toMatchObject({
      status: 'dead',
      attempts: 3,
      response_status: 503,
    });

    receiver.answer({ status: 204 });
    expect(await redeliverEvent(platform.database, integrationId, eventId, platform.clock.now())).toBe(true);
    await runPasses(worker, 2);
    expect(receiver.accepted()).toHaveLength(1);
    expect(await event(integrationId, eventId)).toMatchObject({ status: 'success', response_status: 204 });
  });

  it('gives up at once on a refusal retrying cannot change', async () => {
    receiver.answer({ status: 404 });
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();

    await runPasses(platform.startWorker(), 3);

    expect(receiver.requests).toHaveLength(1);
    expect(await event(integrationId, eventId)).toMatchObject({ status: 'dead', response_status: 404 });
  });

  it('never lets two workers send the same event', async () => {
    await chatIntegration();
    const eventIds = await Promise.all(Array.from({ length: 12 }, (_, i) => publishVpcCreated(`vpc-${i}`)));
    const first = platform.startWorker();
    const second = platform.startWorker();

    const [sentByFirst, sentBySecond] = await Promise.all([first.runOnce(), second.runOnce()]);
    await Promise.all([first.runOnce(), second.runOnce()]);

    expect(sentByFirst + sentBySecond).toBe(12);
    expect(receiver.requests.map((request) => request.headers['webhook-id']).sort()).toEqual(eventIds.sort());
  });

  it("retries an event once a crashed worker's lease runs out", async () => {
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    await claimEvent(platform.database, eventId, 'worker-that-crashed', platform.clock.now(), 30_000);
    const worker = platform.startWorker();

    await worker.runOnce();
    expect(receiver.requests).toHaveLength(0);

    await platform.clock.advance(30_000);
    await worker.runOnce();
    expect(receiver.accepted()).toHaveLength(1);
    expect(await event(integrationId, eventId)).toMatchObject({ status: 'success', attempts: 2 });
  });

  it('signs each event per Standard Webhooks so the receiver can verify it', async () => {
    const integrationId = await chatIntegration();
    const eventId = await publishVpcCreated();
    await platform.startWorker().runOnce();

    const request = receiver.requests[0]!;
    const secret = await signingSecretOf(
      platform.database,
      platform.platformKey,
      integrationId,
      platform.clock.now(),
    );
    const timestamp = request.headers['webhook-timestamp'] as string;
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${eventId}.${timestamp}.${request.body}`)
      .digest('base64');
    expect(secret).toMatch(/^whsec_/);
    expect(request.headers['webhook-id']).toBe(eventId);
    expect(Number(timestamp)).toBe(platform.clock.now().getTime() / 1000);
    expect(request.headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('sends on its own timer once started', async () => {
    await chatIntegration();
    await publishVpcCreated();
    platform.startWorker({ pollIntervalMs: 1_000 });

    await platform.clock.advance(1_000);
    await eventually(() => expect(receiver.accepted()).toHaveLength(1));
  });
});

describe('provider protocols', () => {
  it('triggers and resolves a pager incident keyed by the subject', async () => {
    await platform.addIntegration(
      { type: 'pager', name: 'on call', configuration: { service_id: 'PSERVICE' } },
      { integration_key: 'a'.repeat(32) },
    );
    const deps = { database: platform.database, store: platform.store, now: () => platform.clock.now() };
    const organizationId = platform.organizationId;
    await publishEvent(deps, {
      organizationId,
      type: 'stack.failed',
      subject: 'stk-7',
      payload: { reason: 'boom' },
    });
    await publishEvent(deps, { organizationId, type: 'stack.applied', subject: 'stk-7', payload: {} });
    const worker = platform.startWorker({ endpoints: { pagerUrl: receiver.url, monitorSites: {} } });

    await worker.runOnce();

    const bodies = receiver.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(receiver.requests.map((request) => request.path)).toEqual(['/v2/enqueue', '/v2/enqueue']);
    expect(bodies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ routing_key: 'a'.repeat(32), event_action: 'trigger', dedup_key: 'stk-7' }),
        { routing_key: 'a'.repeat(32), event_action: 'resolve', dedup_key: 'stk-7' },
      ]),
    );
  });

  it('posts a monitoring event with the API key to the chosen site', async () => {
    await platform.addIntegration(
      { type: 'monitor', name: 'metrics', configuration: { site: 'datadoghq.eu', tags: ['env:prod'] } },
      { api_key: 'dd-api-key', app_key: 'dd-app-key' },
    );
    await publishVpcCreated('vpc-9');
    const worker = platform.startWorker({
      endpoints: { pagerUrl: 'http://127.0.0.1:9', monitorSites: { 'datadoghq.eu': receiver.url } },
    });

    await worker.runOnce();

    expect(receiver.requests[0]!.path).toBe('/api/v1/events');
    expect(receiver.requests[0]!.headers['dd-api-key']).toBe('dd-api-key');
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
      title: 'cloudplane vpc.created',
      tags: ['env:prod', 'event_type:vpc.created', 'subject:vpc-9'],
      alert_type: 'info',
    });
  });
});
