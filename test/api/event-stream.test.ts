import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { attachEventStream, type EventStream } from '../../apiserver/event-stream/index.js';
import { serveStreamClient, type StreamSocket } from '../../apiserver/event-stream/stream-client.js';
import type { EventBridge } from '../../integrations/events/event-bridge.js';
import { publishEvent } from '../../integrations/events/publisher.js';
import { createLogger } from '../../observability/logger.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;

const HEARTBEAT_MS = 200;

/** One API replica: the REST app on a server of its own, with the event stream attached. */
interface Replica {
  server: http.Server;
  stream: EventStream;
  streamUrl: string;
}

async function startReplica(platform: TestPlatform): Promise<Replica> {
  const server = http.createServer(platform.platform.restApi());
  const stream = await attachEventStream(server, {
    database: platform.database,
    authenticator: platform.platform.authenticator,
    logger: createLogger('silent'),
    now: () => platform.clock.now(),
    options: { heartbeatIntervalMs: HEARTBEAT_MS },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const streamUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/events/stream`;
  return { server, stream, streamUrl };
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
  await replica?.stream.close();
  await new Promise((resolve) => replica?.server.close(resolve) ?? resolve(undefined));
}

let app: TestPlatform;
let bridge: EventBridge;
let replica: Replica;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  app = await startPlatform();
  bridge = app.platform.startEventBridge();
  await bridge.synced();
  replica = await startReplica(app);
  alice = await registerAndSignIn(app, 'Alice');
  bob = await registerAndSignIn(app, 'Bob');
});

afterAll(async () => {
  await stopReplica(replica);
  await bridge?.stop();
  await app?.close();
});

interface Client {
  socket: WebSocket;
  /** Every message received, parsed, heartbeats included. */
  messages: Json[];
  /** Messages that are events. */
  events(): Json[];
  closed: Promise<{ code: number; reason: string }>;
}

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.token}` });

interface ConnectOptions {
  headers?: Record<string, string>;
  query?: string;
  /** Defaults to the first replica's. */
  streamUrl?: string;
}

async function connect(options: ConnectOptions = {}): Promise<Client> {
  const url = `${options.streamUrl ?? replica.streamUrl}${options.query ?? ''}`;
  const socket = new WebSocket(url, { headers: options.headers });
  const messages: Json[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Json));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, messages, events: () => messages.filter((message) => 'specversion' in message), closed };
}

async function subscribe(account: TestAccount, message: Json, streamUrl?: string): Promise<Client> {
  const client = await connect({ headers: bearer(account), streamUrl });
  client.socket.send(JSON.stringify(message));
  return client;
}

/** The HTTP answer to an upgrade the server refuses. */
async function refusal(options: ConnectOptions = {}) {
  const url = `${options.streamUrl ?? replica.streamUrl}${options.query ?? ''}`;
  const socket = new WebSocket(url, { headers: options.headers });
  return new Promise<{ status: number; body: Json }>((resolve, reject) => {
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Json }));
    });
  });
}

async function createVpc(account: TestAccount, cidr: string, platform = app): Promise<string> {
  const response = await platform.call('POST', '/api/v1/vpcs', {
    token: account.token,
    body: { name: 'streamed', cidr_block: cidr, region: 'us-east-1' },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** An API key of Alice's with these scopes only. */
async function aliceKey(scopes: string[]): Promise<string> {
  const response = await app.call('POST', '/v1/auth/api-keys', {
    token: alice.token,
    body: { name: 'narrow', scopes },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { key: string } }).data.key;
}

async function ticketFor(
  account: TestAccount,
  platform = app,
): Promise<{ ticket: string; expires_at: string }> {
  const response = await platform.call('POST', '/v1/events/tickets', { token: account.token });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { ticket: string; expires_at: string } }).data;
}

describe('GET /v1/events/stream', () => {
  let firstVpc: string;
  let firstEventId: string;

  it("delivers the organization's vpc.created within a second, and never to another organization", async () => {
    const watcher = await subscribe(alice, { subscribe: ['vpc.*'] });
    const stranger = await subscribe(bob, { subscribe: ['*'], since: '0' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    firstVpc = await createVpc(alice, '10.91.0.0/16');
    const event = await eventually(() => {
      const found = watcher.events().find((message) => message.type === 'vpc.created');
      expect(found).toBeDefined();
      return found!;
    }, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(event).toEqual({
      specversion: '1.0',
      id: expect.stringMatching(/^\d+$/),
      source: expect.stringMatching(/^\/v1\/organizations\/.+/),
      type: 'vpc.created',
      time: app.clock.now().toISOString(),
      subject: firstVpc,
      data: expect.objectContaining({ id: firstVpc, name: 'streamed', kind: 'Vpc' }),
    });
    firstEventId = event.id as string;
    // Later events of the VPC (vpc.available) keep coming, in order.
    await eventually(() =>
      expect(watcher.events().map((message) => message.type)).toContain('vpc.available'),
    );
    const ids = watcher.events().map((message) => Number(message.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(stranger.events()).toEqual([]);
    watcher.socket.close();
    stranger.socket.close();
  });

  it('replays what came after `since`, then continues live', async () => {
    const secondVpc = await createVpc(alice, '10.92.0.0/16');
    const all = await subscribe(alice, { subscribe: ['vpc.created'], since: '0' });
    await eventually(() =>
      expect(all.events().map((message) => message.subject)).toEqual([firstVpc, secondVpc]),
    );
    const resumed = await subscribe(alice, { subscribe: ['vpc.created'], since: firstEventId });
    await eventually(() => expect(resumed.events().map((message) => message.subject)).toEqual([secondVpc]));
    const thirdVpc = await createVpc(alice, '10.93.0.0/16');
    await eventually(() =>
      expect(resumed.events().map((message) => message.subject)).toEqual([secondVpc, thirdVpc]),
    );
    all.socket.close();
    resumed.socket.close();
  });

  it('sends a heartbeat once subscribed', async () => {
    const client = await subscribe(alice, { subscribe: ['stack.applied'] });
    await eventually(() =>
      expect(client.messages).toContainEqual({ heartbeat: app.clock.now().toISOString() }),
    );
    client.socket.close();
  });

  it('takes a ticket once, then answers 401', async () => {
    const { ticket, expires_at } = await ticketFor(alice);
    expect(ticket).toMatch(/^evt_tkt_/);
    expect(Date.parse(expires_at) - app.clock.now().getTime()).toBe(60_000);
    const client = await connect({ query: `?ticket=${ticket}` });
    client.socket.send(JSON.stringify({ subscribe: ['vpc.created'], since: '0' }));
    await eventually(() => expect(client.events().map((message) => message.subject)).toContain(firstVpc));
    client.socket.close();

    const reused = await refusal({ query: `?ticket=${ticket}` });
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({
      error: { code: 'invalid_token', message: expect.stringContaining('ticket'), details: {} },
      meta: { request_id: expect.any(String) },
    });
  });

  it('refuses a ticket past its minute', async () => {
    const { ticket } = await ticketFor(alice);
    await app.clock.advance(60_001);
    expect((await refusal({ query: `?ticket=${ticket}` })).status).toBe(401);
  });

  it('answers an upgrade without credentials 401 with the general error body', async () => {
    const refused = await refusal();
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error: { code: 'unauthorized', message: expect.stringContaining('ticket'), details: {} },
      meta: { request_id: expect.any(String) },
    });
    expect((await refusal({ headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
  });

  it.each([
    ['a malformed pattern', { subscribe: ['vpc.'] }, '"vpc." is not a pattern'],
    ['a partial wildcard', { subscribe: ['vp*.created'] }, '"vp*.created" is not a pattern'],
    ['no patterns', { subscribe: [] }, 'subscribe must list'],
    ['a since that is no event id', { subscribe: ['*'], since: 'yesterday' }, 'since must be'],
  ])('closes with 1008 and a reason on %s', async (_case, message, reason) => {
    const client = await subscribe(alice, message);
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain(reason);
  });

  it('shows a credential only the families its scopes read, as the REST API would', async () => {
    const key = await aliceKey(['vault:read']);
    const narrow = await connect({ headers: { 'x-api-key': key } });
    narrow.socket.send(JSON.stringify({ subscribe: ['*'] }));
    const wide = await subscribe(alice, { subscribe: ['*'] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await createVpc(alice, '10.97.0.0/16');
    await eventually(() => expect(wide.events().map((message) => message.type)).toContain('vpc.created'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(narrow.events()).toEqual([]);
    narrow.socket.close();
    wide.socket.close();
  });

  it('closes a client with 1013 when too much is waiting for it', async () => {
    for (let i = 0; i < 3; i++) {
      await publishEvent(
        { database: app.database, store: app.store, now: () => app.clock.now() },
        { organizationId: 'org_slowclient', type: 'stack.applied', subject: `stk-${i}`, payload: {} },
      );
    }
    let messageHandler: ((data: Buffer, isBinary: boolean) => void) | undefined;
    const sent: string[] = [];
    const closes: { code: number; reason: string }[] = [];
    const slow = {
      readyState: 1,
      bufferedAmount: 0,
      send: (data: string) => {
        sent.push(data);
        slow.bufferedAmount += 1_000;
      },
      close: (code: number, reason: string) => closes.push({ code, reason }),
      on(event: string, handler: (data: Buffer, isBinary: boolean) => void) {
        if (event === 'message') messageHandler = handler;
        return slow;
      },
    };
    const feed = {
      latest: () => Number.MAX_SAFE_INTEGER,
      listen: () => () => undefined,
      stop: async () => {},
    };
    serveStreamClient(
      slow as unknown as StreamSocket,
      { organizationId: 'org_slowclient', scopes: ['*'] },
      {
        database: app.database,
        feed,
        now: () => app.clock.now(),
        logger: createLogger('silent'),
        limits: {
          heartbeatIntervalMs: 60_000,
          subscribeTimeoutMs: 60_000,
          maxBufferedBytes: 1_500,
          maxPendingEvents: 10,
        },
      },
    );
    messageHandler!(Buffer.from(JSON.stringify({ subscribe: ['*'], since: '0' })), false);
    await eventually(() => expect(closes).toHaveLength(1));
    expect(sent).toHaveLength(2);
    expect(closes[0]!.code).toBe(1013);
  });
});

describeWithPostgres('GET /v1/events/stream across replicas on PostgreSQL', () => {
  let database: TestPostgresDatabase;
  let platform: TestPlatform;
  let postgresBridge: EventBridge;
  let replicas: Replica[];
  let owner: TestAccount;

  beforeAll(async () => {
    database = (await createTestPostgresDatabase())!;
    platform = await startPlatform({ databaseUrl: database.url });
    postgresBridge = platform.platform.startEventBridge();
    await postgresBridge.synced();
    replicas = [await startReplica(platform), await startReplica(platform)];
    owner = await registerAndSignIn(platform, 'Grace');
  });

  afterAll(async () => {
    for (const each of replicas ?? []) await stopReplica(each);
    await postgresBridge?.stop();
    await platform?.close();
    await database?.drop();
  });

  it('shows a client on either replica every event, and a ticket from one opens the other once', async () => {
    const [first, second] = replicas as [Replica, Replica];
    const onFirst = await subscribe(owner, { subscribe: ['vpc.created'] }, first.streamUrl);
    const onSecond = await subscribe(owner, { subscribe: ['vpc.created'] }, second.streamUrl);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const vpc = await createVpc(owner, '10.94.0.0/16', platform);
    for (const client of [onFirst, onSecond]) {
      await eventually(() => expect(client.events().map((message) => message.subject)).toEqual([vpc]), 1_000);
      client.socket.close();
    }

    const { ticket } = await ticketFor(owner, platform);
    const viaTicket = await connect({ query: `?ticket=${ticket}`, streamUrl: second.streamUrl });
    viaTicket.socket.send(JSON.stringify({ subscribe: ['vpc.*'], since: '0' }));
    await eventually(() => expect(viaTicket.events().map((message) => message.subject)).toContain(vpc));
    viaTicket.socket.close();
    expect((await refusal({ query: `?ticket=${ticket}`, streamUrl: first.streamUrl })).status).toBe(401);
  });
});
