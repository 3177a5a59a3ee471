/**
 * The relational sink into MySQL and MariaDB through the Kafka Connect REST API: real brokers,
 * records produced with kafkajs, and rows read back from a private database made for this run
 * on the server at CLOUDPLANE_TEST_MYSQL_URL.
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCluster, writeAcls } from '../fixtures/connect-cluster.js';
import { eventually } from '../fixtures/eventually.js';

type Json = Record<string, unknown>;
const TOPICS = ['orders', 'products'];
const serverUrl = process.env.CLOUDPLANE_TEST_MYSQL_URL || undefined;
if (!serverUrl) {
  console.warn('SKIPPING the MySQL sink tests: CLOUDPLANE_TEST_MYSQL_URL is not set');
}
const database = `cp_sink_${randomBytes(4).toString('hex')}`;

const cluster = connectCluster({
  streamingPorts: '29731-29760',
  clusterName: 'to-mysql',
  user: { username: 'producer', password: 'a-long-enough-password' },
  grants: { acls: writeAcls(TOPICS) },
  topics: TOPICS,
  producer: true,
  clientId: 'connect-mysql-test',
});
const { connect, produce } = cluster;
let admin: mysql.Connection;

/** The JDBC URL and login of the private database, as a user of the sink writes them. */
function sinkConfig(scheme: 'mysql' | 'mariadb', topics: string, extra: Record<string, string>) {
  const url = new URL(serverUrl!);
  return {
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    topics,
    'connection.url': `jdbc:${scheme}://${url.host}/${database}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
    'auto.create': 'true',
    ...extra,
  };
}

async function rows(sql: string): Promise<Json[]> {
  const [found] = await admin.query<mysql.RowDataPacket[]>(sql);
  return found.map((row) => ({ ...row }));
}

beforeAll(async () => {
  if (!serverUrl) return;
  admin = await mysql.createConnection({ uri: serverUrl, supportBigNumbers: true });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.changeUser({ database });
  await cluster.start();
}, 120_000);

afterAll(async () => {
  await cluster.close();
  await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin?.end();
}, 60_000);

describe.skipIf(!serverUrl)('the relational sink into MySQL and MariaDB', () => {
  it('upserts schemaless and enveloped records into a table it creates, keyed by the record key', async () => {
    await produce('orders', [
      { key: 1, value: { item: 'book', qty: 2, tags: ['new'] } },
      { key: 2, value: { item: 'pen', qty: 10, tags: [] } },
      {
        key: 1,
        value: {
          schema: {
            type: 'struct',
            fields: [
              { field: 'item', type: 'string' },
              { field: 'qty', type: 'int32' },
              { field: 'tags', type: 'array' },
            ],
          },
          payload: { item: 'book', qty: 3, tags: ['new', 'gift'] },
        },
      },
    ]);
    const created = await connect('PUT', '/connectors/orders-mysql/config', {
      ...sinkConfig('mysql', 'orders', {
        'insert.mode': 'upsert',
        'pk.mode': 'record_key',
        'pk.fields': 'id',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.config).toMatchObject({ 'connection.password': '[hidden]' });
    await eventually(
      async () =>
        expect(await rows('SELECT id, item, qty, tags FROM orders ORDER BY id')).toEqual([
          { id: 1, item: 'book', qty: 3, tags: ['new', 'gift'] },
          { id: 2, item: 'pen', qty: 10, tags: [] },
        ]),
      30_000,
    );
    const [columns] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, COLUMN_KEY AS k FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION`,
      [database],
    );
    expect(columns.map((column) => [column.name, column.type, column.k])).toEqual([
      ['id', 'bigint(20)', 'PRI'],
      ['item', 'text', ''],
      ['qty', 'bigint(20)', ''],
      ['tags', 'longtext', ''],
    ]);
    const status = await connect('GET', '/connectors/orders-mysql/status');
    expect((status.body.tasks as Json[])[0]?.state).toBe('RUNNING');
  }, 60_000);

  it('keys a table by a text field of the value (jdbc:mariadb), as VARCHAR(255)', async () => {
    await produce('products', [
      { value: { sku: 'A-1', name: 'lamp', price: 12.5 } },
      { value: { sku: 'B-2', name: 'chair', price: 40 } },
      { value: { sku: 'A-1', name: 'desk lamp', price: 14 } },
    ]);
    const created = await connect('POST', '/connectors', {
      name: 'products-mariadb',
      config: sinkConfig('mariadb', 'products', {
        'insert.mode': 'upsert',
        'pk.mode': 'record_value',
        'pk.fields': 'sku',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(
      async () =>
        expect(await rows('SELECT sku, name, price FROM products ORDER BY sku')).toEqual([
          { sku: 'A-1', name: 'desk lamp', price: 14 },
          { sku: 'B-2', name: 'chair', price: 40 },
        ]),
      30_000,
    );
    const [key] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT COLUMN_TYPE AS type FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'products' AND COLUMN_KEY = 'PRI'`,
      [database],
    );
    expect(key).toEqual([{ type: 'varchar(255)' }]);
  }, 60_000);
});
