/**
 * The README's example pipeline, exactly as it is written there: PostgreSQL change capture with
 * pgoutput into an Avro topic through the cluster's schema registry, and a JDBC sink that unwraps
 * the change events (ExtractNewRecordState), names the table with a RegexRouter and upserts the
 * rows into another database. The source database is a private PostgreSQL with `wal_level=logical`;
 * the target one a database of the test server.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import { privatePostgres, type PrivatePostgres } from '../../workloads/local/engines/private-postgres.js';
import { connectCluster, readerGrants } from '../fixtures/connect-cluster.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  TEST_POSTGRES_SERVER_URL,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';

type Json = Record<string, unknown>;
const USER = { username: 'pipeline-user', password: 'a-long-enough-password' };
const READER_GROUP = 'inventory-readers';
const TOPIC = 'inventory.public.products';

const cluster = connectCluster({
  streamingPorts: '29971-29999',
  clusterName: 'pipeline',
  user: USER,
  grants: readerGrants('inventory', READER_GROUP),
  clientId: 'connect-pipeline-test',
});
const { connect, statusOf } = cluster;

let serverDir: string;
let server: PrivatePostgres | undefined;
let source: pg.ClientConfig | undefined;
let inventory: pg.Client;
let target: TestPostgresDatabase | undefined;
let registryUrl: string;

/** A private server with logical decoding on: started once, `wal_level` set, started again. */
async function startLogicalPostgres(): Promise<pg.ClientConfig> {
  serverDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pipeline-postgres-'));
  await fs.chmod(serverDir, 0o755);
  server = privatePostgres(serverDir, '15', createLogger('silent'));
  const first = await server.start();
  const admin = new pg.Client({ ...first, database: 'postgres' });
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET wal_level = 'logical'`);
  await admin.query('CREATE DATABASE inventory');
  await admin.end();
  await server.stop();
  return { ...(await server.start()), database: 'inventory' };
}

beforeAll(async () => {
  if (!TEST_POSTGRES_SERVER_URL) return;
  try {
    source = await startLogicalPostgres();
  } catch (error) {
    console.warn(`SKIPPING the example pipeline: no private PostgreSQL could start (${String(error)})`);
    return;
  }
  inventory = new pg.Client(source);
  await inventory.connect();
  await inventory.query(
    'CREATE TABLE public.products (id integer PRIMARY KEY, name text NOT NULL, price numeric, in_stock boolean)',
  );
  await inventory.query(
    `INSERT INTO public.products VALUES (1, 'kettle', 24.90, true), (2, 'teapot', 18.50, false)`,
  );
  target = await createTestPostgresDatabase();
  await cluster.start();
  const described = await cluster.api('GET', `/v1/streaming/clusters/${cluster.clusterId}`);
  registryUrl = (described.body.data as Json).schema_registry_url as string;
}, 180_000);

afterAll(async () => {
  await inventory?.end().catch(() => undefined);
  await cluster.close();
  await target?.drop();
  await server?.stop();
  if (serverDir) await fs.rm(serverDir, { recursive: true, force: true });
}, 60_000);

async function query(sql: string) {
  const client = new pg.Client({ connectionString: target!.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Json[];
  } finally {
    await client.end();
  }
}

describeWithPostgres('the example pipeline: change capture \u2192 Avro topic \u2192 JDBC sink', () => {
  it('copies the table\u2019s snapshot and its changes into the other database', async (context) => {
    if (!source) return context.skip();
    const registryAuth = `${USER.username}:${USER.password}`;
    const avro = (side: 'key' | 'value') => ({
      [`${side}.converter`]: 'io.confluent.connect.avro.AvroConverter',
      [`${side}.converter.schema.registry.url`]: registryUrl,
      [`${side}.converter.basic.auth.credentials.source`]: 'USER_INFO',
      [`${side}.converter.basic.auth.user.info`]: registryAuth,
    });
    // The README's source, with this test's database coordinates.
    const capture = await connect('PUT', '/connectors/inventory-capture/config', {
      'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
      'plugin.name': 'pgoutput',
      'database.hostname': String(source.host),
      'database.port': String(source.port),
      'database.user': String(source.user),
      'database.password': String(source.password),
      'database.dbname': 'inventory',
      'topic.prefix': 'inventory',
      'table.include.list': 'public.products',
      ...avro('key'),
      ...avro('value'),
    });
    expect(capture.status, JSON.stringify(capture.body)).toBe(201);

    const database = new URL(target!.url);
    const server = new URL(TEST_POSTGRES_SERVER_URL!);
    // The README's sink, with this test's database coordinates.
    const sink = await connect('PUT', '/connectors/products-sink/config', {
      'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
      topics: TOPIC,
      'connection.url': `jdbc:postgresql://${database.host}${database.pathname}`,
      'connection.user': decodeURIComponent(server.username),
      'connection.password': decodeURIComponent(server.password),
      'insert.mode': 'upsert',
      'pk.mode': 'record_key',
      'auto.create': 'true',
      ...avro('key'),
      ...avro('value'),
      transforms: 'unwrap,route',
      'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': '([^.]+)\\.([^.]+)\\.([^.]+)',
      'transforms.route.replacement': '$3',
    });
    expect(sink.status, JSON.stringify(sink.body)).toBe(201);

    const rows = () => query('select id, name, price, in_stock from products order by id');
    await eventually(async () => {
      expect(await rows()).toEqual([
        { id: 1, name: 'kettle', price: '24.90', in_stock: true },
        { id: 2, name: 'teapot', price: '18.50', in_stock: false },
      ]);
    }, 60_000);
    const columns = await query(
      `select column_name, data_type from information_schema.columns where table_name = 'products'`,
    );
    expect(Object.fromEntries(columns.map((column) => [column.column_name, column.data_type]))).toEqual({
      id: 'integer',
      name: 'text',
      price: 'text',
      in_stock: 'boolean',
    });

    await inventory.query(`INSERT INTO public.products VALUES (3, 'cup', 4.20, true)`);
    await inventory.query(`UPDATE public.products SET in_stock = true, price = 17.00 WHERE id = 2`);
    await eventually(async () => {
      expect(await rows()).toEqual([
        { id: 1, name: 'kettle', price: '24.90', in_stock: true },
        { id: 2, name: 'teapot', price: '17.00', in_stock: true },
        { id: 3, name: 'cup', price: '4.20', in_stock: true },
      ]);
    }, 60_000);

    // The topic holds Avro change events a registry client decodes, under Debezium's subjects.
    const registry = new SchemaRegistry({ host: registryUrl, auth: USER });
    const consumer = cluster.kafka.consumer({ groupId: READER_GROUP });
    const decoded: { key: unknown; value: Json }[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          decoded.push({
            key: await registry.decode(message.key!),
            value: (await registry.decode(message.value!)) as Json,
          });
        },
      });
      await eventually(() => expect(decoded).toHaveLength(4), 30_000);
    } finally {
      await consumer.disconnect();
    }
    expect(decoded.map(({ key, value }) => [key, value.op])).toEqual([
      [{ id: 1 }, 'r'],
      [{ id: 2 }, 'r'],
      [{ id: 3 }, 'c'],
      [{ id: 2 }, 'u'],
    ]);
    expect(decoded[2]!.value.after).toEqual({ id: 3, name: 'cup', price: '4.20', in_stock: true });
    const subjects = await fetch(`${registryUrl}/subjects`, {
      headers: { authorization: `Basic ${Buffer.from(registryAuth).toString('base64')}` },
    });
    expect(await subjects.json()).toEqual(expect.arrayContaining([`${TOPIC}-key`, `${TOPIC}-value`]));
    for (const name of ['inventory-capture', 'products-sink']) {
      expect((await statusOf(name)).tasks).toEqual([expect.objectContaining({ id: 0, state: 'RUNNING' })]);
    }
  }, 180_000);
});
