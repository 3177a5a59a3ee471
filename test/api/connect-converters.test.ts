/**
 * Connectors configured as Kafka Connect users configure them: each converter (Kafka's String,
 * ByteArray and Json converters, Confluent's Avro, Protobuf and JSON Schema converters against the
 * cluster's own schema registry, the records produced with Confluent's registry client) end to end
 * through the brokers into PostgreSQL and S3-protocol objects; a poison record sent to the
 * dead-letter topic with Kafka's context headers while the records around it arrive, or failing
 * the task with a trace naming the stage and the record; three tasks sharing three partitions.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { Producer } from 'kafkajs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectSchema } from '../../connect/connect-record.js';
import { converterFor } from '../../connect/converters/index.js';
import { connectCluster, readerGrants, writeAcls } from '../fixtures/connect-cluster.js';
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
  accessKeyId: 'AKIDCONVERT',
  secretAccessKey: 'convert-secret-key',
  bucket: 'formats',
};
const USER = { username: 'converter-user', password: 'a-long-enough-password' };
const TOPICS = [
  'conv.json',
  'conv.avro',
  'conv.proto',
  'conv.jsonschema',
  'conv.string',
  'conv.bytes',
  'conv.poison',
  'conv.shapes',
];
const READER_GROUP = 'conv-reader';

const cluster = connectCluster({
  streamingPorts: '29851-29880',
  clusterName: 'converters',
  user: USER,
  grants: {
    ...readerGrants('conv', READER_GROUP),
    acls: [...readerGrants('conv', READER_GROUP).acls, ...writeAcls([...TOPICS, 'conv.spread'])],
  },
  topics: TOPICS,
  clientId: 'connect-converters-test',
});
const { connect, statusOf } = cluster;

let s3: S3Server;
let producer: Producer;
let registry: SchemaRegistry;
let registryUrl: string;

const ORDERS = [
  { id: 1, item: 'book', qty: 2, price: 12.5, placed: Date.UTC(2026, 0, 2, 3, 4, 5) },
  { id: 2, item: 'pen', qty: 10, price: 1.25, placed: Date.UTC(2026, 1, 3) },
  { id: 3, item: 'ink', qty: 1, price: 7, placed: Date.UTC(2026, 2, 4) },
];
const keyOf = (order: { id: number }) => `order-${order.id}`;

const AVRO_ORDER = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'price', type: 'double' },
    { name: 'placed', type: { type: 'long', logicalType: 'timestamp-millis' } },
  ],
};
const PROTO_ORDER = `syntax = "proto3";
package shop;

message Order {
  int64 id = 1;
  string item = 2;
  int32 qty = 3;
  double price = 4;
  int64 placed = 5;
}
`;
const JSON_SCHEMA_ORDER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'shop.Order',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    item: { type: 'string' },
    qty: { type: 'integer' },
    price: { type: 'number' },
    placed: { type: 'integer' },
  },
  required: ['id', 'item', 'qty', 'price', 'placed'],
};

async function send(
  topic: string,
  messages: { key: string | Buffer | null; value: Buffer | string | null; partition?: number }[],
) {
  await producer.send({ topic, messages });
}

/** A Protobuf record in Confluent's wire format: the client writes no message indexes, so the one of the first message goes in. */
const withFirstMessageIndex = (encoded: Buffer) =>
  Buffer.concat([encoded.subarray(0, 5), Buffer.from([0]), encoded.subarray(5)]);

/** The registry converters' keys, as Confluent's documentation writes them. */
const registryConverter = (className: string) => ({
  'value.converter': className,
  'value.converter.schema.registry.url': registryUrl,
  'value.converter.basic.auth.credentials.source': 'USER_INFO',
  'value.converter.basic.auth.user.info': `${USER.username}:${USER.password}`,
});

interface Format {
  name: string;
  topic: string;
  /** Its converter keys, once the registry's URL is known. */
  converter(): Record<string, string>;
  /** The orders as the format writes them. */
  produce(): Promise<void>;
  /** The column types PostgreSQL reports for the auto-created table. */
  columns: Record<string, string>;
}

const STRING_KEYS = { 'key.converter': 'org.apache.kafka.connect.storage.StringConverter' };

const FORMATS: Format[] = [
  {
    name: 'JsonConverter with schemas',
    topic: 'conv.json',
    converter: () => ({
      ...STRING_KEYS,
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'true',
    }),
    async produce() {
      const schema = {
        type: 'struct',
        name: 'shop.Order',
        fields: [
          { field: 'id', type: 'int64' },
          { field: 'item', type: 'string' },
          { field: 'qty', type: 'int32' },
          { field: 'price', type: 'float64' },
          { field: 'placed', type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', version: 1 },
        ],
      };
      await send(
        'conv.json',
        ORDERS.map((order) => ({ key: keyOf(order), value: JSON.stringify({ schema, payload: order }) })),
      );
    },
    columns: {
      order_key: 'text',
      id: 'bigint',
      item: 'text',
      qty: 'integer',
      price: 'double precision',
      placed: 'timestamp without time zone',
    },
  },
  {
    name: 'AvroConverter',
    topic: 'conv.avro',
    converter: () => ({ ...STRING_KEYS, ...registryConverter('io.confluent.connect.avro.AvroConverter') }),
    async produce() {
      const { id } = await registry.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(AVRO_ORDER) },
        { subject: 'conv.avro-value' },
      );
      const messages = [];
      for (const order of ORDERS)
        messages.push({ key: keyOf(order), value: await registry.encode(id, order) });
      await send('conv.avro', messages);
    },
    columns: {
      order_key: 'text',
      id: 'bigint',
      item: 'text',
      qty: 'integer',
      price: 'double precision',
      placed: 'timestamp without time zone',
    },
  },
  {
    name: 'ProtobufConverter',
    topic: 'conv.proto',
    converter: () => ({
      ...STRING_KEYS,
      ...registryConverter('io.confluent.connect.protobuf.ProtobufConverter'),
    }),
    async produce() {
      const { id } = await registry.register(
        { type: SchemaType.PROTOBUF, schema: PROTO_ORDER },
        { subject: 'conv.proto-value' },
      );
      const messages = [];
      for (const order of ORDERS) {
        messages.push({ key: keyOf(order), value: withFirstMessageIndex(await registry.encode(id, order)) });
      }
      await send('conv.proto', messages);
    },
    columns: {
      order_key: 'text',
      id: 'bigint',
      item: 'text',
      qty: 'integer',
      price: 'double precision',
      placed: 'bigint',
    },
  },
  {
    name: 'JsonSchemaConverter',
    topic: 'conv.jsonschema',
    converter: () => ({
      ...STRING_KEYS,
      ...registryConverter('io.confluent.connect.json.JsonSchemaConverter'),
    }),
    async produce() {
      const { id } = await registry.register(
        { type: SchemaType.JSON, schema: JSON.stringify(JSON_SCHEMA_ORDER) },
        { subject: 'conv.jsonschema-value' },
      );
      const messages = [];
      for (const order of ORDERS)
        messages.push({ key: keyOf(order), value: await registry.encode(id, order) });
      await send('conv.jsonschema', messages);
    },
    columns: {
      order_key: 'text',
      id: 'bigint',
      item: 'text',
      qty: 'bigint',
      price: 'double precision',
      placed: 'bigint',
    },
  },
];

beforeAll(async () => {
  s3 = await startS3Server({ ...S3, buckets: [S3.bucket] });
  await cluster.start();
  await cluster.createTopic('conv.spread', 3);
  const described = await cluster.api('GET', `/v1/streaming/clusters/${cluster.clusterId}`);
  registryUrl = (described.body.data as Json).schema_registry_url as string;
  // Confluent's JSON Schemas carry `connect.type` annotations, which Ajv's strict mode refuses.
  registry = new SchemaRegistry({ host: registryUrl, auth: USER }, { [SchemaType.JSON]: { strict: false } });
  producer = cluster.kafka.producer();
  await eventually(() => producer.connect(), 15_000);
  for (const format of FORMATS) await format.produce();
}, 120_000);

afterAll(async () => {
  await producer?.disconnect();
  await cluster.close();
  await s3?.close();
}, 60_000);

/** The first `count` records of a dead-letter topic, their headers as strings. */
async function deadLetters(topic: string, count: number) {
  const dead: { key: string; value: string; headers: Record<string, string> }[] = [];
  const consumer = cluster.kafka.consumer({ groupId: READER_GROUP });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        dead.push({
          key: String(message.key),
          value: String(message.value),
          headers: Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([key, value]) => [key, String(value)]),
          ),
        });
      },
    });
    await eventually(() => expect(dead).toHaveLength(count), 30_000);
  } finally {
    await consumer.disconnect();
  }
  return dead;
}

const s3Config = (topic: string) => ({
  'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
  topics: topic,
  's3.bucket.name': S3.bucket,
  's3.region': S3.region,
  'store.url': s3.url,
  'aws.access.key.id': S3.accessKeyId,
  'aws.secret.access.key': S3.secretAccessKey,
  'flush.size': '3',
});

const objectLines = (topic: string) =>
  eventually(() => {
    const object = s3.objects(S3.bucket).get(`topics/${topic}/partition=0/${topic}+0+0000000000.json`);
    expect(object, `no object for ${topic} yet`).toBeDefined();
    return object!
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
  }, 30_000);

describe('every converter into S3 objects', () => {
  it.each(FORMATS.map((format) => [format.name, format] as const))('%s', async (_name, format) => {
    const name = `s3-${format.topic.replace('conv.', '')}`;
    const created = await connect('PUT', `/connectors/${name}/config`, {
      ...s3Config(format.topic),
      ...format.converter(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await objectLines(format.topic)).toEqual(ORDERS);
  });

  it('StringConverter and ByteArrayConverter values, written as JSON strings', async () => {
    await send('conv.string', [
      { key: null, value: 'row-0' },
      { key: null, value: 'row-1' },
      { key: null, value: 'row-2' },
    ]);
    await send(
      'conv.bytes',
      [0, 1, 2].map((n) => ({ key: null, value: Buffer.from([n, 255]) })),
    );
    for (const [topic, className] of [
      ['conv.string', 'org.apache.kafka.connect.storage.StringConverter'],
      ['conv.bytes', 'org.apache.kafka.connect.converters.ByteArrayConverter'],
    ] as const) {
      const name = `s3-${topic.replace('conv.', '')}`;
      const created = await connect('POST', '/connectors', {
        name,
        config: { ...s3Config(topic), 'key.converter': className, 'value.converter': className },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    expect(await objectLines('conv.string')).toEqual(['row-0', 'row-1', 'row-2']);
    expect(await objectLines('conv.bytes')).toEqual(
      [0, 1, 2].map((n) => Buffer.from([n, 255]).toString('base64')),
    );
  });
});

describe('the registry converters writing, as a source writes', () => {
  const ORDER_SCHEMA: ConnectSchema = {
    type: 'struct',
    name: 'shop.Placed',
    fields: [
      { field: 'id', type: 'int64' },
      { field: 'item', type: 'string' },
      { field: 'note', type: 'string', optional: true },
    ],
  };
  const order = { id: 9, item: 'lamp', note: null };

  it.each([
    ['io.confluent.connect.avro.AvroConverter', 'TopicNameStrategy', 'conv.written-value', 'AVRO'],
    ['io.confluent.connect.protobuf.ProtobufConverter', 'RecordNameStrategy', 'shop.Placed', 'PROTOBUF'],
    [
      'io.confluent.connect.json.JsonSchemaConverter',
      'io.confluent.kafka.serializers.subject.TopicRecordNameStrategy',
      'conv.written-shop.Placed',
      'JSON',
    ],
  ])(
    '%s registers under the %s subject, and Confluent\u2019s client decodes the record',
    async (className, strategy, subject, type) => {
      const converter = converterFor(
        { ...registryConverter(className), 'value.converter.value.subject.name.strategy': strategy },
        'value',
      );
      const bytes = (await converter.fromConnectData('conv.written', ORDER_SCHEMA, order))!;
      const latest = await fetch(`${registryUrl}/subjects/${subject}/versions/latest`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`,
        },
      });
      expect(latest.status).toBe(200);
      const registered = (await latest.json()) as Json;
      expect(registered.schemaType ?? 'AVRO').toBe(type);
      expect(bytes.readInt32BE(1)).toBe(registered.id);
      const decoded = (await registry.decode(bytes)) as Json;
      // Protobuf's int64 decodes as a Long.
      expect([String(decoded.id), decoded.item]).toEqual(['9', 'lamp']);
      // And read back by the same converter, as a sink would.
      expect(await converter.toConnectData('conv.written', bytes)).toMatchObject({
        value: { id: 9, item: 'lamp' },
      });
    },
  );

  it('with auto.register.schemas=false only looks the schema up, and refuses one never registered', async () => {
    const lookup = (schema: ConnectSchema) =>
      converterFor(
        {
          ...registryConverter('io.confluent.connect.avro.AvroConverter'),
          'value.converter.auto.register.schemas': 'false',
        },
        'value',
      ).fromConnectData('conv.written', schema, { id: 1, item: 'x', note: null });
    const written = (await lookup(ORDER_SCHEMA))!;
    expect(await registry.decode(written)).toMatchObject({ id: 1, item: 'x' });
    const other: ConnectSchema = { ...ORDER_SCHEMA, fields: ORDER_SCHEMA.fields!.slice(0, 2) };
    await expect(lookup(other)).rejects.toThrow(
      /Failed to serialize Avro data from topic conv.written: .*not found/i,
    );
  });
});

describe('converter configuration', () => {
  it('refuses an unknown converter and a registry converter without its registry, naming the keys', async () => {
    const refused = await connect('POST', '/connectors', {
      name: 'misconfigured',
      config: {
        ...s3Config('conv.avro'),
        'key.converter': 'com.example.NoSuchConverter',
        'value.converter': 'io.confluent.connect.avro.AvroConverter',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('key.converter: Invalid value com.example.NoSuchConverter');
    expect(refused.body.message).toContain('value.converter.schema.registry.url');
  });
});

describeWithPostgres('every converter into PostgreSQL, and errors', () => {
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
  async function query(sql: string) {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Json[];
    } finally {
      await client.end();
    }
  }
  const jdbcConfig = (topic: string, table: string) => ({
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    topics: topic,
    'connection.url': jdbcUrl(target.url),
    ...credentials(),
    'table.name.format': table,
    'insert.mode': 'upsert',
    'pk.mode': 'record_key',
    'pk.fields': 'order_key',
    'auto.create': 'true',
  });

  beforeAll(async () => {
    target = (await createTestPostgresDatabase())!;
  });
  afterAll(async () => target?.drop());

  it.each(FORMATS.map((format) => [format.name, format] as const))(
    '%s: rows in a table of the schema\u2019s types, keyed by the string key',
    async (_name, format) => {
      const table = `${format.topic.replace('conv.', '')}_orders`;
      const name = `db-${format.topic.replace('conv.', '')}`;
      const created = await connect('PUT', `/connectors/${name}/config`, {
        ...jdbcConfig(format.topic, table),
        ...format.converter(),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const rows = await eventually(async () => {
        const found = await query(`select order_key, id, item, qty, price from ${table} order by id`);
        expect(found).toHaveLength(3);
        return found;
      }, 30_000);
      expect(rows).toEqual(
        ORDERS.map((order) => ({
          order_key: keyOf(order),
          id: String(order.id),
          item: order.item,
          qty: format.columns.qty === 'integer' ? order.qty : String(order.qty),
          price: order.price,
        })),
      );
      const columns = await query(
        `select column_name, data_type from information_schema.columns where table_name = '${table}'`,
      );
      expect(Object.fromEntries(columns.map((column) => [column.column_name, column.data_type]))).toEqual(
        format.columns,
      );
    },
  );

  it('writes a poison record to the dead-letter topic with Kafka\u2019s context headers while the records around it arrive', async () => {
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(AVRO_ORDER) },
      { subject: 'conv.poison-value' },
    );
    await send('conv.poison', [
      { key: 'order-1', value: await registry.encode(id, ORDERS[0]!) },
      { key: 'order-2', value: JSON.stringify({ id: 2, note: 'not Avro' }) },
      { key: 'order-3', value: await registry.encode(id, ORDERS[2]!) },
    ]);
    const created = await connect('POST', '/connectors', {
      name: 'poison-db',
      config: {
        ...jdbcConfig('conv.poison', 'poison_orders'),
        ...STRING_KEYS,
        ...registryConverter('io.confluent.connect.avro.AvroConverter'),
        'errors.tolerance': 'all',
        'errors.log.enable': 'true',
        'errors.deadletterqueue.topic.name': 'conv.dlq',
        'errors.deadletterqueue.topic.replication.factor': '1',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(async () => {
      expect(await query('select order_key from poison_orders order by order_key')).toEqual([
        { order_key: 'order-1' },
        { order_key: 'order-3' },
      ]);
    }, 30_000);
    const dead = await deadLetters('conv.dlq', 1);
    expect(dead[0]).toMatchObject({
      key: 'order-2',
      value: JSON.stringify({ id: 2, note: 'not Avro' }),
      headers: {
        '__connect.errors.topic': 'conv.poison',
        '__connect.errors.partition': '0',
        '__connect.errors.offset': '1',
        '__connect.errors.connector.name': 'poison-db',
        '__connect.errors.task.id': '0',
        '__connect.errors.stage': 'VALUE_CONVERTER',
        '__connect.errors.class.name': 'io.confluent.connect.avro.AvroConverter',
        '__connect.errors.exception.class.name': 'org.apache.kafka.connect.errors.DataException',
        '__connect.errors.exception.message':
          'Failed to deserialize data for topic conv.poison to Avro: Unknown magic byte!',
      },
    });
    expect(dead[0]!.headers['__connect.errors.exception.stacktrace']).toMatch(
      /^org\.apache\.kafka\.connect\.errors\.DataException: Failed to deserialize data/,
    );
    expect((await statusOf('poison-db')).tasks).toEqual([
      expect.objectContaining({ id: 0, state: 'RUNNING' }),
    ]);
    // The registry credentials are a secret: sealed, and answered hidden.
    const config = (await connect('GET', '/connectors/poison-db/config')).body;
    expect(config['value.converter.basic.auth.user.info']).toBe('[hidden]');
  });

  it('sends a record the sink refuses to the dead-letter topic from the TASK_PUT stage, writing the rest of its batch', async () => {
    await send('conv.shapes', [
      { key: 'order-1', value: JSON.stringify({ id: 1 }) },
      { key: 'order-2', value: JSON.stringify([2, 'not a row']) },
      { key: 'order-3', value: JSON.stringify({ id: 3 }) },
    ]);
    const created = await connect('POST', '/connectors', {
      name: 'shapes-db',
      config: {
        ...jdbcConfig('conv.shapes', 'shapes'),
        ...STRING_KEYS,
        'value.converter.schemas.enable': 'false',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'conv.dlq-put',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(async () => {
      expect(await query('select order_key, id from shapes order by order_key')).toEqual([
        { order_key: 'order-1', id: '1' },
        { order_key: 'order-3', id: '3' },
      ]);
    }, 30_000);
    const [dead] = await deadLetters('conv.dlq-put', 1);
    expect(dead).toMatchObject({
      key: 'order-2',
      headers: {
        '__connect.errors.offset': '1',
        '__connect.errors.stage': 'TASK_PUT',
        '__connect.errors.class.name': 'io.confluent.connect.jdbc.sink.JdbcSinkTask',
        '__connect.errors.exception.class.name': 'org.apache.kafka.connect.errors.DataException',
      },
    });
    expect(dead!.headers['__connect.errors.exception.message']).toContain('is not a JSON object');
  });

  it('fails the task on the poison record without tolerance, the trace naming the stage and the record', async () => {
    const created = await connect('POST', '/connectors', {
      name: 'poison-strict',
      config: {
        ...jdbcConfig('conv.poison', 'strict_orders'),
        ...STRING_KEYS,
        ...registryConverter('io.confluent.connect.avro.AvroConverter'),
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await cluster.untilTaskState('poison-strict', 'FAILED', 30_000);
    const trace = failed.tasks[0]!.trace!;
    expect(trace).toContain(
      "org.apache.kafka.connect.errors.ConnectException: Tolerance exceeded in error handler. Executing stage 'VALUE_CONVERTER' with class 'io.confluent.connect.avro.AvroConverter', where consumed record is {topic='conv.poison', partition=0, offset=1,",
    );
    expect(trace).toContain(
      'Caused by: org.apache.kafka.connect.errors.DataException: Failed to deserialize data for topic conv.poison to Avro: Unknown magic byte!',
    );
    expect((await connect('DELETE', '/connectors/poison-strict')).status).toBe(204);
  });

  it('shares three partitions among three tasks, every record arriving once', async () => {
    await send(
      'conv.spread',
      Array.from({ length: 30 }, (_, n) => ({
        key: null,
        value: JSON.stringify({ id: n, part: n % 3 }),
        partition: n % 3,
      })),
    );
    const created = await connect('POST', '/connectors', {
      name: 'spread-db',
      config: {
        'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
        topics: 'conv.spread',
        'tasks.max': '3',
        'connection.url': jdbcUrl(target.url),
        ...credentials(),
        'table.name.format': 'spread',
        'auto.create': 'true',
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.tasks).toEqual([0, 1, 2].map((task) => ({ connector: 'spread-db', task })));
    await eventually(async () => {
      expect(await query('select count(*)::int as rows, count(distinct id)::int as ids from spread')).toEqual(
        [{ rows: 30, ids: 30 }],
      );
    }, 30_000);
    const status = await statusOf('spread-db');
    expect(status.tasks.map((task) => [task.id, task.state])).toEqual([
      [0, 'RUNNING'],
      [1, 'RUNNING'],
      [2, 'RUNNING'],
    ]);
    await eventually(async () => {
      const offsets = (await connect('GET', '/connectors/spread-db/offsets')).body
        .offsets as unknown as Json[];
      expect(offsets.map((entry) => entry.offset)).toEqual([
        { kafka_offset: 10 },
        { kafka_offset: 10 },
        { kafka_offset: 10 },
      ]);
    }, 15_000);
    expect(await query('select count(*)::int as rows from spread')).toEqual([{ rows: 30 }]);
  });
});
