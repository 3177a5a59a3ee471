/**
 * The connectors whose configuration the runtime keeps but whose tasks it cannot run (Debezium's
 * MongoDB source, the Elasticsearch sink), through the Kafka Connect REST API: validated, stored
 * with their secrets hidden, and reported FAILED with a trace that names the server they lack,
 * never RUNNING.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../controllers/runtime/clock.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
interface Status {
  connector: { state: string; trace?: string };
  tasks: { id: number; state: string; trace?: string }[];
}
const USER = { username: 'operator', password: 'a-long-enough-password' };

let app: TestPlatform;
let owner: TestAccount;
let clusterId: string;
let listening: net.Server;
let openPort: number;
let closedPort: number;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await app.call(method, path, { token: owner.token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

const basic = `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`;

async function connect(method: string, path: string, body?: unknown) {
  const response = await app.request(`/streaming/${clusterId}/connect${path}`, {
    method,
    headers: { authorization: basic, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls the status until it fails, asserting that no poll on the way saw it RUNNING. */
async function untilFailed(name: string): Promise<Status> {
  const seen = new Set<string>();
  const status = await eventually(async () => {
    const current = (await connect('GET', `/connectors/${name}/status`)).body as unknown as Status;
    seen.add(current.connector.state);
    for (const task of current.tasks) seen.add(task.state);
    expect(current.connector.state, JSON.stringify(current)).toBe('FAILED');
    expect(current.tasks[0]?.state).toBe('FAILED');
    return current;
  }, 20_000);
  expect(seen.has('RUNNING')).toBe(false);
  return status;
}

beforeAll(async () => {
  closedPort = await freePort();
  listening = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  openPort = (listening.address() as net.AddressInfo).port;
  app = await startPlatform({
    clock: systemClock,
    env: { CLOUDPLANE_STREAMING_PORTS: '29811-29840', CLOUDPLANE_STREAMING_REFRESH_MS: '300' },
  });
  owner = await registerAndSignIn(app);
  const created = await api('POST', '/v1/streaming/clusters', { name: 'elsewhere', region: 'us-east-1' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  clusterId = (created.body.data as Json).id as string;
  await eventually(async () => {
    const current = (await api('GET', `/v1/streaming/clusters/${clusterId}`)).body.data as Json;
    expect(current.status).toBe('running');
  }, 30_000);
  const user = await api('POST', `/v1/streaming/clusters/${clusterId}/users`, {
    name: USER.username,
    password: USER.password,
    acls: [],
  });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
}, 90_000);

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => listening?.close(resolve));
}, 60_000);

describe('the MongoDB source', () => {
  const mongo = () => ({
    'connector.class': 'io.debezium.connector.mongodb.MongoDbConnector',
    'mongodb.connection.string': `mongodb://reader:s3cret@127.0.0.1:${closedPort}/?replicaSet=rs0`,
    'topic.prefix': 'carts',
    'collection.include.list': 'shop.carts',
  });

  it('validates its configuration with Debezium\u2019s keys', async () => {
    const answer = await connect('PUT', '/connector-plugins/MongoDbConnector/config/validate', {
      ...mongo(),
      name: 'carts-capture',
      'mongodb.connection.string': 'http://db',
      'capture.mode': 'oplog',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      name: 'io.debezium.connector.mongodb.MongoDbConnector',
      error_count: 2,
    });
    const errors = Object.fromEntries(
      (answer.body.configs as { value: { name: string; errors: string[] } }[]).map(({ value }) => [
        value.name,
        value.errors,
      ]),
    );
    expect(errors['mongodb.connection.string']).toEqual([
      'must be a mongodb:// or mongodb+srv:// connection string',
    ]);
    expect(errors['capture.mode']![0]).toContain('must be one of');
  });

  it('is kept with its connection string hidden, and fails naming the MongoDB it cannot reach', async () => {
    const created = await connect('POST', '/connectors', { name: 'carts-capture', config: mongo() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      type: 'source',
      config: { 'mongodb.connection.string': '[hidden]', 'collection.include.list': 'shop.carts' },
    });
    const status = await untilFailed('carts-capture');
    const message = `no MongoDB server is reachable at 127.0.0.1:${closedPort}: this platform runs no MongoDB; point mongodb.connection.string at one`;
    expect(status.connector.trace).toContain(message);
    expect(status.tasks[0]!.trace).toContain(message);
    expect(JSON.stringify(status)).not.toContain('s3cret');
    expect((await connect('GET', '/connectors/carts-capture/offsets')).body).toEqual({ offsets: [] });
  });
});

describe('the search-index sink', () => {
  const search = (url: string) => ({
    'connector.class': 'io.confluent.connect.elasticsearch.ElasticsearchSinkConnector',
    topics: 'orders',
    'connection.url': url,
    'connection.username': 'elastic',
    'connection.password': 'search-secret',
    'key.ignore': 'true',
    'type.name': '_doc',
  });

  it('validates its URLs', async () => {
    const answer = await connect(
      'PUT',
      '/connector-plugins/io.confluent.connect.elasticsearch.ElasticsearchSinkConnector/config/validate',
      { ...search('search:9200'), name: 'orders-index' },
    );
    expect(answer.body).toMatchObject({ error_count: 1 });
  });

  it('fails naming the search server it cannot reach, and says so differently when one answers', async () => {
    const created = await connect(
      'PUT',
      '/connectors/orders-index/config',
      search(`http://127.0.0.1:${closedPort}`),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ type: 'sink', config: { 'connection.password': '[hidden]' } });
    const missing = await untilFailed('orders-index');
    expect(missing.connector.trace).toContain(
      `no Elasticsearch or OpenSearch server is reachable at 127.0.0.1:${closedPort}: this platform runs no search service; point connection.url at one`,
    );

    const moved = await connect('PUT', '/connectors/orders-index/config', {
      ...search(`http://127.0.0.1:${openPort}`),
      'connection.password': '[hidden]',
    });
    expect(moved.status).toBe(200);
    await eventually(async () => {
      const status = (await connect('GET', '/connectors/orders-index/status')).body as unknown as Status;
      expect(status.connector.state).toBe('FAILED');
      expect(status.connector.trace).toContain(`a server accepts connections at 127.0.0.1:${openPort}, but`);
    }, 20_000);
  });
});
