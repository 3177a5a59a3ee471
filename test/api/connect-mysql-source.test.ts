/**
 * The MySQL change-capture source through the Kafka Connect REST API: a private MariaDB writing a
 * row-based binlog, real brokers, and Debezium-shaped records read back with kafkajs: the rows
 * already there as a snapshot, then every change once, across a restart and a stop.
 */
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../controllers/runtime/clock.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { binlogMariadbMissing, startBinlogMariadb, type BinlogMariadb } from '../fixtures/binlog-mariadb.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
const USER = { username: 'cdc-reader', password: 'a-long-enough-password' };
const PREFIX = 'inventory';
const TOPIC = `${PREFIX}.shop.orders`;

const missing = binlogMariadbMissing();
if (missing) console.warn(`SKIPPING the MySQL source tests: ${missing}`);

let app: TestPlatform;
let owner: TestAccount;
let clusterId: string;
let kafka: Kafka;
let server: BinlogMariadb | undefined;
let shop: mysql.Connection;

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

function sourceConfig(overrides: Record<string, string> = {}) {
  return {
    'connector.class': 'io.debezium.connector.mysql.MySqlConnector',
    'database.hostname': server!.host,
    'database.port': String(server!.port),
    'database.user': server!.user,
    'database.password': server!.password,
    'database.server.id': '5401',
    'database.include.list': 'shop',
    'table.include.list': 'shop.orders',
    'topic.prefix': PREFIX,
    ...overrides,
  };
}

async function untilTaskState(name: string, state: string) {
  await eventually(async () => {
    const status = await connect('GET', `/connectors/${name}/status`);
    expect((status.body.tasks as Json[])[0]?.state, JSON.stringify(status.body)).toBe(state);
  }, 20_000);
}

beforeAll(async () => {
  if (missing) return;
  server = await startBinlogMariadb();
  shop = await mysql.createConnection({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
  });
  await shop.query('CREATE DATABASE shop');
  await shop.changeUser({ database: 'shop' });
  await shop.query('CREATE TABLE orders (id int PRIMARY KEY, name varchar(40), total decimal(8,2))');
  await shop.query('CREATE TABLE audit (id int PRIMARY KEY)');
  await shop.query(`INSERT INTO orders VALUES (10, 'kept', 9.99)`);
  app = await startPlatform({
    clock: systemClock,
    env: { CLOUDPLANE_STREAMING_PORTS: '29771-29800', CLOUDPLANE_STREAMING_REFRESH_MS: '300' },
  });
  owner = await registerAndSignIn(app);
  const created = await api('POST', '/v1/streaming/clusters', { name: 'binlog', region: 'us-east-1' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  clusterId = (created.body.data as Json).id as string;
  const cluster = await eventually(async () => {
    const current = (await api('GET', `/v1/streaming/clusters/${clusterId}`)).body.data as Json;
    expect(current.status).toBe('running');
    return current;
  }, 30_000);
  const bootstrap = (await api('GET', `/v1/streaming/clusters/${clusterId}/bootstrap`)).body.data as Json;
  const user = await api('POST', `/v1/streaming/clusters/${clusterId}/users`, {
    name: USER.username,
    password: USER.password,
    consumer_group: 'cdc-readers',
    acls: [
      {
        resource_type: 'topic',
        pattern_type: 'prefixed',
        name: `${PREFIX}.`,
        operations: ['read', 'describe'],
        permission: 'allow',
      },
      {
        resource_type: 'group',
        pattern_type: 'literal',
        name: 'cdc-readers',
        operations: ['read', 'describe'],
        permission: 'allow',
      },
    ],
  });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  kafka = new Kafka({
    clientId: 'binlog-test',
    brokers: cluster.bootstrap_servers as string[],
    ssl: { ca: [bootstrap.ca_certificate as string] },
    sasl: { mechanism: 'scram-sha-512', ...USER },
    logLevel: logLevel.NOTHING,
  });
}, 180_000);

afterAll(async () => {
  await shop?.end().catch(() => undefined);
  await app?.close();
  await server?.stop();
}, 60_000);

interface ChangeRecord {
  key: Json | null;
  value: { before: Json | null; after: Json | null; op: string; source: Json };
}

describe.skipIf(missing)('the MySQL change-capture source', () => {
  it('refuses a snapshot mode it does not know', async () => {
    const refused = await connect('POST', '/connectors', {
      name: 'wrong-mode',
      config: sourceConfig({ 'snapshot.mode': 'always' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('snapshot.mode');
  });

  it('goes FAILED with the server\u2019s refusal, and runs once its configuration is right', async () => {
    const config = sourceConfig({
      'database.password': 'wrong',
      'database.server.id': '5402',
      'table.include.list': 'shop.audit',
      'snapshot.mode': 'no_data',
    });
    const created = await connect('POST', '/connectors', { name: 'audit-capture', config });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await untilTaskState('audit-capture', 'FAILED');
    const status = await connect('GET', '/connectors/audit-capture/status');
    expect((status.body.tasks as Json[])[0]!.trace).toContain('Access denied');
    const fixed = await connect('PUT', '/connectors/audit-capture/config', {
      ...config,
      'database.password': server!.password,
    });
    expect(fixed.status).toBe(200);
    await untilTaskState('audit-capture', 'RUNNING');
    expect((await connect('DELETE', '/connectors/audit-capture')).status).toBe(204);
  });

  it('captures the existing rows, then inserts, updates and deletes once each, across a restart and a stop', async () => {
    const created = await connect('POST', '/connectors', { name: 'orders-capture', config: sourceConfig() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ type: 'source', config: { 'database.password': '[hidden]' } });
    await untilTaskState('orders-capture', 'RUNNING');

    await shop.query(`INSERT INTO orders VALUES (1, 'tea', 3.50), (2, 'it''s', 1), (3, NULL, 2)`);
    await shop.query('INSERT INTO audit VALUES (1)');
    await shop.query(`UPDATE orders SET name = 'green tea' WHERE id = 1`);
    await shop.query('DELETE FROM orders WHERE id = 2');
    await eventually(async () => {
      const topics = await connect('GET', '/connectors/orders-capture/topics');
      expect(topics.body).toEqual({ 'orders-capture': { topics: [TOPIC] } });
    }, 30_000);

    const received: ChangeRecord[] = [];
    const consumer: Consumer = kafka.consumer({ groupId: 'cdc-readers' });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        received.push({
          key: message.key ? (JSON.parse(String(message.key)) as Json) : null,
          value: JSON.parse(String(message.value)) as ChangeRecord['value'],
        });
      },
    });
    try {
      await eventually(() => expect(received).toHaveLength(6), 30_000);
      expect(received.map(({ key, value }) => [key, value.op, value.before, value.after])).toEqual([
        [{ id: 10 }, 'r', null, { id: 10, name: 'kept', total: '9.99' }],
        [{ id: 1 }, 'c', null, { id: 1, name: 'tea', total: '3.50' }],
        [{ id: 2 }, 'c', null, { id: 2, name: "it's", total: '1.00' }],
        [{ id: 3 }, 'c', null, { id: 3, name: null, total: '2.00' }],
        [{ id: 1 }, 'u', { id: 1, name: 'tea', total: '3.50' }, { id: 1, name: 'green tea', total: '3.50' }],
        [{ id: 2 }, 'd', { id: 2, name: "it's", total: '1.00' }, null],
      ]);
      expect(received[0]!.value.source).toMatchObject({ connector: 'mysql', snapshot: 'last', db: 'shop' });
      expect(received[1]!.value.source).toMatchObject({
        connector: 'mysql',
        name: PREFIX,
        snapshot: 'false',
        db: 'shop',
        table: 'orders',
        server_id: 5401,
        file: expect.stringMatching(/^binlog\.\d+$/),
        pos: expect.any(Number),
        row: 0,
        ts_ms: expect.any(Number),
      });
      expect(received[2]!.value.source).toMatchObject({ row: 1, pos: received[1]!.value.source.pos });

      const committed = await eventually(async () => {
        const offsets = await connect('GET', '/connectors/orders-capture/offsets');
        const [offset] = offsets.body.offsets as { partition: Json; offset: { file: string; pos: number } }[];
        expect(offset).toMatchObject({ partition: { server: PREFIX }, offset: { file: expect.any(String) } });
        return offset!.offset;
      }, 15_000);
      const [status] = await shop.query<mysql.RowDataPacket[]>('SHOW MASTER STATUS');
      expect(committed).toEqual({ file: status[0]!.File, pos: status[0]!.Position });

      const restarted = await connect('POST', '/connectors/orders-capture/restart?includeTasks=true');
      expect(restarted.status).toBe(202);
      await untilTaskState('orders-capture', 'RUNNING');
      await shop.query(`INSERT INTO orders VALUES (4, 'coffee', 4)`);
      await eventually(() => expect(received).toHaveLength(7), 30_000);

      expect((await connect('PUT', '/connectors/orders-capture/stop')).status).toBe(204);
      await untilStopped('orders-capture');
      await shop.query(`INSERT INTO orders VALUES (5, 'cocoa', 5)`);
      expect((await connect('PUT', '/connectors/orders-capture/resume')).status).toBe(202);
      await eventually(() => expect(received).toHaveLength(8), 30_000);
      // Long enough for the source to resend anything it would: nothing acknowledged comes again.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(received).toHaveLength(8);

      expect((await connect('PUT', '/connectors/orders-capture/pause')).status).toBe(202);
      await untilTaskState('orders-capture', 'PAUSED');
      await shop.query(`UPDATE orders SET total = 6 WHERE id = 5`);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(received).toHaveLength(8);
      expect((await connect('PUT', '/connectors/orders-capture/resume')).status).toBe(202);
      await eventually(() => expect(received).toHaveLength(9), 30_000);
      expect(received.slice(6).map(({ key, value }) => [key, value.op, value.after])).toEqual([
        [{ id: 4 }, 'c', { id: 4, name: 'coffee', total: '4.00' }],
        [{ id: 5 }, 'c', { id: 5, name: 'cocoa', total: '5.00' }],
        [{ id: 5 }, 'u', { id: 5, name: 'cocoa', total: '6.00' }],
      ]);
    } finally {
      await consumer.disconnect();
    }

    expect((await connect('DELETE', '/connectors/orders-capture')).status).toBe(204);
    await eventually(async () => {
      const left = await app.database.kysely
        .selectFrom('connect_source_offsets')
        .select('name')
        .where('cluster', '=', clusterId)
        .execute();
      expect(left).toEqual([]);
    }, 20_000);
  }, 150_000);
});

async function untilStopped(name: string) {
  await eventually(async () => {
    const status = await connect('GET', `/connectors/${name}/status`);
    expect(status.body.connector).toMatchObject({ state: 'STOPPED' });
    expect(status.body.tasks).toEqual([]);
  }, 20_000);
}
