/**
 * The connector runtime through its Kafka Connect REST API on the local workload runtime: real
 * brokers, records produced with kafkajs, and sinks that write them into PostgreSQL tables and
 * S3-protocol objects; pause, resume, stop, offsets, restarts after a failure, and the cluster's
 * deletion taking its connectors along.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import { connectCluster, writeAcls, type ConnectBody } from '../fixtures/connect-cluster.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  TEST_POSTGRES_SERVER_URL,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';

type Json = Record<string, unknown>;
const S3 = {
  region: 'eu-west-1',
  accessKeyId: 'AKIDCONNECT',
  secretAccessKey: 'connect-secret-key',
  bucket: 'sink',
};
const TOPICS = ['orders', 'clicks', 'pending'];

const cluster = connectCluster({
  streamingPorts: '29460-29490',
  clusterName: 'pipelines',
  user: { username: 'producer', password: 'a-long-enough-password' },
  grants: { acls: writeAcls(TOPICS) },
  topics: TOPICS,
  producer: true,
  clientId: 'connect-api-test',
});
const { api, connect, produce, statusOf, untilTaskState } = cluster;
let s3: S3Server;
const databases: TestPostgresDatabase[] = [];

beforeAll(async () => {
  s3 = await startS3Server({ ...S3, buckets: [S3.bucket] });
  await cluster.start();
}, 90_000);

afterAll(async () => {
  await cluster.close();
  await s3?.close();
  for (const database of databases) await database.drop();
}, 60_000);

describe('the Kafka Connect REST API', () => {
  it('answers its version and exactly the plugins it runs', async () => {
    const root = await connect('GET', '/');
    expect(root).toMatchObject({
      status: 200,
      body: { version: expect.any(String), kafka_cluster_id: cluster.clusterId },
    });
    const plugins = await connect('GET', '/connector-plugins');
    expect(plugins.body.map((plugin: Json) => plugin.class)).toEqual([
      'io.confluent.connect.jdbc.JdbcSinkConnector',
      'io.confluent.connect.s3.S3SinkConnector',
      'io.confluent.connect.elasticsearch.ElasticsearchSinkConnector',
      'io.debezium.connector.postgresql.PostgresConnector',
      'io.debezium.connector.mysql.MySqlConnector',
      'io.debezium.connector.mongodb.MongoDbConnector',
    ]);
  });

  it('refuses a request without the cluster\u2019s credentials with Kafka\u2019s error body', async () => {
    const refused = await connect('GET', '/connectors', undefined, 'Basic bm9ib2R5Om5vcGU=');
    expect(refused).toEqual({ status: 401, body: { error_code: 401, message: expect.any(String) } });
  });

  it('validates a configuration as config/validate does', async () => {
    const answer = await connect('PUT', '/connector-plugins/JdbcSinkConnector/config/validate', {
      'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
      topics: 'orders',
      'insert.mode': 'sideways',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      name: 'io.confluent.connect.jdbc.JdbcSinkConnector',
      error_count: 3,
    });
    const errors = Object.fromEntries(
      (answer.body.configs as ConnectBody[]).map((info) => [info.value!.name, info.value!.errors!.length]),
    );
    expect(errors).toMatchObject({ name: 1, 'connection.url': 1, 'insert.mode': 1, topics: 0 });
  });

  it.each([
    [
      { name: 'x', config: { 'connector.class': 'com.example.Nope', topics: 'orders' } },
      'Failed to find any class',
    ],
    [{ name: 'x', config: { 'connector.class': 'S3SinkConnector', topics: 'orders' } }, 's3.bucket.name'],
    [{ name: 'x/y', config: { 'connector.class': 'S3SinkConnector' } }, 'a connector name'],
  ])('refuses %j with 400', async (body, message) => {
    const refused = await connect('POST', '/connectors', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe(400);
    expect(refused.body.message).toContain(message);
  });

  it('answers 404 for a connector that does not exist', async () => {
    expect(await connect('GET', '/connectors/ghost/status')).toEqual({
      status: 404,
      body: { error_code: 404, message: 'Connector ghost not found' },
    });
  });
});

describe('the object-storage sink', () => {
  it('writes JSON lines objects named as Confluent names them, flush.size records each', async () => {
    await produce(
      'clicks',
      [1, 2, 3, 4, 5].map((n) => ({ value: { page: `/p/${n}`, n } })),
    );
    const created = await connect('POST', '/connectors', {
      name: 'clicks-archive',
      config: {
        'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
        topics: 'clicks',
        's3.bucket.name': S3.bucket,
        's3.region': S3.region,
        'store.url': s3.url,
        'aws.access.key.id': S3.accessKeyId,
        'aws.secret.access.key': S3.secretAccessKey,
        'flush.size': '2',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.config!['aws.secret.access.key']).toBe('[hidden]');
    const objects = await eventually(() => {
      const stored = s3.objects(S3.bucket);
      expect([...stored.keys()].sort()).toEqual([
        'topics/clicks/partition=0/clicks+0+0000000000.json',
        'topics/clicks/partition=0/clicks+0+0000000002.json',
      ]);
      return stored;
    }, 20_000);
    const lines = objects
      .get('topics/clicks/partition=0/clicks+0+0000000002.json')!
      .toString()
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { page: '/p/3', n: 3 },
      { page: '/p/4', n: 4 },
    ]);
    // The fifth record waits in the buffer: only the written objects' offsets are committed.
    const offsets = await connect('GET', '/connectors/clicks-archive/offsets');
    expect(offsets.body).toEqual({
      offsets: [{ partition: { kafka_topic: 'clicks', kafka_partition: 0 }, offset: { kafka_offset: 4 } }],
    });
    expect((await connect('GET', '/connectors/clicks-archive/topics')).body).toEqual({
      'clicks-archive': { topics: ['clicks'] },
    });
  });
});

describeWithPostgres('the relational sink', () => {
  let target: TestPostgresDatabase;
  const jdbcUrl = (url: string) => {
    const parsed = new URL(url);
    return `jdbc:postgresql://${parsed.host}${parsed.pathname}`;
  };
  const credentials = () => {
    const parsed = new URL(TEST_POSTGRES_SERVER_URL!);
    return {
      'connection.user': decodeURIComponent(parsed.username),
      'connection.password': decodeURIComponent(parsed.password),
    };
  };
  async function rows(url: string, sql: string) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }
  const jdbcConfig = (url: string, topics: string) => ({
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    topics,
    'connection.url': jdbcUrl(url),
    ...credentials(),
    'insert.mode': 'upsert',
    'pk.mode': 'record_key',
    'pk.fields': 'id',
    'auto.create': 'true',
  });

  beforeAll(async () => {
    target = (await createTestPostgresDatabase())!;
    databases.push(target);
  });

  it('upserts schemaless and enveloped JSON records into a table it creates', async () => {
    await produce('orders', [
      { key: 1, value: { id: 1, item: 'book', qty: 2 } },
      { key: 2, value: { id: 2, item: 'pen', qty: 10 } },
      {
        key: 1,
        value: {
          schema: {
            type: 'struct',
            fields: [
              { field: 'id', type: 'int64' },
              { field: 'item', type: 'string' },
              { field: 'qty', type: 'int32' },
            ],
          },
          payload: { id: 1, item: 'book', qty: 3 },
        },
      },
    ]);
    const put = await connect('PUT', '/connectors/orders-db/config', jdbcConfig(target.url, 'orders'));
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    await eventually(async () => {
      expect(await rows(target.url, 'select id, item, qty from orders order by id')).toEqual([
        { id: '1', item: 'book', qty: '3' },
        { id: '2', item: 'pen', qty: '10' },
      ]);
    }, 20_000);
    expect(await statusOf('orders-db')).toMatchObject({
      connector: { state: 'RUNNING' },
      tasks: [{ id: 0, state: 'RUNNING' }],
    });
    expect((await connect('GET', '/connectors/orders-db/config')).body['connection.password']).toBe(
      '[hidden]',
    );
    const again = await connect('POST', '/connectors', {
      name: 'orders-db',
      config: jdbcConfig(target.url, 'orders'),
    });
    expect(again.status).toBe(409);
    // A configuration sent back as read keeps the stored password.
    const config = (await connect('GET', '/connectors/orders-db/config')).body;
    expect((await connect('PUT', '/connectors/orders-db/config', config)).status).toBe(200);
    await untilTaskState('orders-db', 'RUNNING');
  });

  it('holds records while paused and writes them once resumed', async () => {
    expect((await connect('PUT', '/connectors/orders-db/pause')).status).toBe(202);
    await eventually(async () =>
      expect(await statusOf('orders-db')).toMatchObject({
        connector: { state: 'PAUSED' },
        tasks: [{ state: 'PAUSED' }],
      }),
    );
    await produce('orders', [{ key: 3, value: { id: 3, item: 'ink', qty: 1 } }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await rows(target.url, 'select id from orders where id = 3')).toEqual([]);
    expect((await connect('PUT', '/connectors/orders-db/resume')).status).toBe(202);
    await eventually(
      async () => expect(await rows(target.url, 'select id from orders where id = 3')).toHaveLength(1),
      15_000,
    );
  });

  it('changes offsets only when stopped, and starts over after a reset', async () => {
    expect((await connect('DELETE', '/connectors/orders-db/offsets')).status).toBe(400);
    expect((await connect('GET', '/connectors/orders-db/offsets')).body).toEqual({
      offsets: [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 4 } }],
    });
    expect((await connect('PUT', '/connectors/orders-db/stop')).status).toBe(204);
    await eventually(async () =>
      expect(await statusOf('orders-db')).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] }),
    );
    const altered = await connect('PATCH', '/connectors/orders-db/offsets', {
      offsets: [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 2 } }],
    });
    expect(altered.status, JSON.stringify(altered.body)).toBe(200);
    expect((await connect('GET', '/connectors/orders-db/offsets')).body.offsets![0]!.offset).toEqual({
      kafka_offset: 2,
    });
    expect((await connect('DELETE', '/connectors/orders-db/offsets')).status).toBe(200);
    await rows(target.url, 'delete from orders');
    expect((await connect('PUT', '/connectors/orders-db/resume')).status).toBe(202);
    await eventually(
      async () => expect(await rows(target.url, 'select id from orders')).toHaveLength(3),
      20_000,
    );
  });

  it('goes FAILED with a trace while its database refuses, and restarts by itself once it answers', async () => {
    const pendingName = `cp_test_pending_${Date.now().toString(16)}`;
    const pendingUrl = new URL(TEST_POSTGRES_SERVER_URL!);
    pendingUrl.pathname = `/${pendingName}`;
    await produce('pending', [{ key: 7, value: { id: 7, note: 'late' } }]);
    const created = await connect('POST', '/connectors', {
      name: 'pending-db',
      config: jdbcConfig(pendingUrl.toString(), 'pending'),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await untilTaskState('pending-db', 'FAILED');
    expect(failed.tasks[0]!.trace).toContain(pendingName);
    // kubectl describe of the cluster says which connector failed and why.
    const warning = await eventually(async () => {
      const events = (await cluster.app.store.list(EVENT_KIND, {})).items as unknown as CoreEvent[];
      const found = events.find((event) => event.reason === 'ConnectorTaskFailed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(warning).toMatchObject({ type: 'Warning', involvedObject: { kind: 'StreamingCluster' } });
    expect(warning.message).toContain('connector pending-db task 0 failed');
    expect(warning.message).toContain(pendingName);
    await rows(TEST_POSTGRES_SERVER_URL!, `create database ${pendingName}`);
    databases.push({
      url: pendingUrl.toString(),
      drop: () =>
        rows(TEST_POSTGRES_SERVER_URL!, `drop database if exists ${pendingName} with (force)`).then(
          () => undefined,
        ),
    });
    await eventually(
      async () =>
        expect(await rows(pendingUrl.toString(), 'select id, note from pending')).toEqual([
          { id: '7', note: 'late' },
        ]),
      30_000,
    );
    await untilTaskState('pending-db', 'RUNNING');
  });

  it('restarts a task on request and lists connectors expanded', async () => {
    const restarted = await connect('POST', '/connectors/pending-db/restart?includeTasks=true');
    expect(restarted.status).toBe(202);
    expect(restarted.body.tasks![0]!.state).toBe('RESTARTING');
    await untilTaskState('pending-db', 'RUNNING');
    expect((await connect('POST', '/connectors/pending-db/tasks/0/restart')).status).toBe(204);
    expect((await connect('GET', '/connectors/pending-db/tasks/0/status')).body).toMatchObject({ id: 0 });
    const listed = await connect('GET', '/connectors?expand=status&expand=info');
    expect(Object.keys(listed.body).sort()).toEqual(['clicks-archive', 'orders-db', 'pending-db']);
    expect(listed.body['orders-db']!.info!.type).toBe('sink');
    expect((await connect('GET', '/connectors/orders-db/tasks')).body).toEqual([
      {
        id: { connector: 'orders-db', task: 0 },
        config: expect.objectContaining({ 'connection.password': '[hidden]' }),
      },
    ]);
  });
});

describe('removal', () => {
  it('deletes a connector', async () => {
    expect((await connect('DELETE', '/connectors/clicks-archive')).status).toBe(204);
    expect((await connect('GET', '/connectors/clicks-archive')).status).toBe(404);
  });

  it('removes the connectors of a deleted cluster', async () => {
    expect((await api('DELETE', `/v1/streaming/clusters/${cluster.clusterId}`)).status).toBe(204);
    await eventually(async () => {
      const left = await cluster.app.database.kysely
        .selectFrom('connect_connectors')
        .select('name')
        .where('cluster', '=', cluster.clusterId)
        .execute();
      expect(left).toEqual([]);
    }, 30_000);
  });
});
