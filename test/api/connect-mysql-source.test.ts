/**
 * The MySQL change-capture source through the Kafka Connect REST API: a private MariaDB writing a
 * row-based binlog, real brokers, and Debezium-shaped records read back with kafkajs: the rows
 * already there as a snapshot, then every change once, across a restart and a stop.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binlogMariadbMissing, startBinlogMariadb, type BinlogMariadb } from '../fixtures/binlog-mariadb.js';
import { connectCluster, readerGrants, type ChangeValue } from '../fixtures/connect-cluster.js';
import { eventually } from '../fixtures/eventually.js';

type Json = Record<string, unknown>;
const PREFIX = 'inventory';
const TOPIC = `${PREFIX}.shop.orders`;

const missing = binlogMariadbMissing();
if (missing) console.warn(`SKIPPING the MySQL source tests: ${missing}`);

const cluster = connectCluster({
  streamingPorts: '29771-29800',
  clusterName: 'binlog',
  user: { username: 'cdc-reader', password: 'a-long-enough-password' },
  grants: readerGrants(PREFIX, 'cdc-readers'),
  clientId: 'binlog-test',
});
const { connect, consume, untilTaskState } = cluster;
let server: BinlogMariadb | undefined;
let shop: mysql.Connection;

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
  await cluster.start();
}, 180_000);

afterAll(async () => {
  await shop?.end().catch(() => undefined);
  await cluster.close();
  await server?.stop();
}, 60_000);

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

    const { records: received, stop } = await consume<ChangeValue>(TOPIC, 'cdc-readers');
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
      // Kafka's default JsonConverter writes Debezium's schemas beside the key and the value.
      expect(received[0]!.keySchema).toMatchObject({ type: 'struct', name: `${TOPIC}.Key` });
      expect(received[0]!.valueSchema).toMatchObject({
        type: 'struct',
        name: `${TOPIC}.Envelope`,
        fields: expect.arrayContaining([
          expect.objectContaining({ field: 'after', name: `${TOPIC}.Value` }),
          expect.objectContaining({ field: 'source', name: 'io.debezium.connector.mysql.Source' }),
        ]),
      });
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
        const [offset] = offsets.body.offsets as unknown as {
          partition: Json;
          offset: { file: string; pos: number };
        }[];
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
      await stop();
    }

    expect((await connect('DELETE', '/connectors/orders-capture')).status).toBe(204);
    await eventually(async () => {
      const left = await cluster.app.database.kysely
        .selectFrom('connect_source_offsets')
        .select('name')
        .where('cluster', '=', cluster.clusterId)
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
