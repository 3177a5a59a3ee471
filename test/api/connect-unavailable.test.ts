/**
 * The connectors whose configuration the runtime keeps but whose tasks it cannot run (Debezium's
 * MongoDB source, the Elasticsearch sink), through the Kafka Connect REST API: validated, stored
 * with their secrets hidden, and reported FAILED with a trace that names the server they lack,
 * never RUNNING.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCluster, type ConnectorStatus } from '../fixtures/connect-cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { freePort } from '../fixtures/free-port.js';

const cluster = connectCluster({
  streamingPorts: '29811-29840',
  clusterName: 'elsewhere',
  user: { username: 'operator', password: 'a-long-enough-password' },
  grants: { acls: [] },
});
const { connect, statusOf } = cluster;
let listening: net.Server;
let openPort: number;
let closedPort: number;

/** Polls the status until it fails, asserting that no poll on the way saw it RUNNING. */
async function untilFailed(name: string): Promise<ConnectorStatus> {
  const seen = new Set<string>();
  const status = await eventually(async () => {
    const current = await statusOf(name);
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
  await cluster.start();
}, 90_000);

afterAll(async () => {
  await cluster.close();
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
      (answer.body.configs as unknown as { value: { name: string; errors: string[] } }[]).map(({ value }) => [
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

  it.each([
    ['no body', undefined],
    ['{}', {}],
    ['null', null],
  ])('takes %s on the actions that take no body, as Connect clients send them', async (_case, body) => {
    expect((await connect('PUT', '/connectors/carts-capture/pause', body)).status).toBe(202);
    expect((await connect('PUT', '/connectors/carts-capture/resume', body)).status).toBe(202);
    expect((await connect('POST', '/connectors/carts-capture/restart', body)).status).toBeLessThan(300);
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
      const status = await statusOf('orders-index');
      expect(status.connector.state).toBe('FAILED');
      expect(status.connector.trace).toContain(`a server accepts connections at 127.0.0.1:${openPort}, but`);
    }, 20_000);
  });
});
