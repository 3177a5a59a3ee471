/**
 * Single message transforms as Kafka Connect users chain them, end to end through the brokers into
 * PostgreSQL and S3-protocol objects: a RegexRouter naming the table, InsertField adding a static
 * field and the record's offset, a TimestampConverter making a timestamp column, a Filter with a
 * TopicNameMatches predicate dropping a whole topic (whose offsets still advance), a MaskField; a
 * long chain running every other transform and predicate (Debezium's ExtractNewRecordState,
 * Flatten, ReplaceField, Cast, HeaderFrom, InsertHeader, DropHeaders, ValueToKey, ExtractField,
 * RecordIsTombstone and a negated HasHeaderKey), headers made visible as columns by InsertFields
 * under HasHeaderKey; an S3 sink whose objects show TimestampRouter's topic and a value extracted,
 * narrowed and hoisted; and a transform failing on a poison record, sent to the dead-letter topic
 * under the transform's class while the records around it arrive.
 */
import type { Producer } from 'kafkajs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
const USER = { username: 'transform-user', password: 'a-long-enough-password' };
const TOPICS = ['xf.orders', 'xf.rehearsal', 'xf.poison', 'xf.dlq', 'xf.shapes', 'xf.events'];
const S3 = {
  region: 'eu-west-1',
  accessKeyId: 'AKIDTRANSFORM',
  secretAccessKey: 'transform-secret-key',
  bucket: 'transformed',
};
const READER_GROUP = 'xf-reader';

const cluster = connectCluster({
  streamingPorts: '29941-29970',
  clusterName: 'transforms',
  user: USER,
  grants: {
    ...readerGrants('xf', READER_GROUP),
    acls: [...readerGrants('xf', READER_GROUP).acls, ...writeAcls(TOPICS)],
  },
  topics: TOPICS,
  clientId: 'connect-transforms-test',
});
const { connect, statusOf } = cluster;

let producer: Producer;
let s3: S3Server | undefined;
let target: TestPostgresDatabase | undefined;

const STRING_KEYS = { 'key.converter': 'org.apache.kafka.connect.storage.StringConverter' };
const SCHEMALESS_JSON = {
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
};

async function send(topic: string, messages: { key: string; value: Json }[]) {
  await producer.send({
    topic,
    messages: messages.map(({ key, value }) => ({ key, value: JSON.stringify(value) })),
  });
}

async function query(sql: string) {
  const client = new pg.Client({ connectionString: target!.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Json[];
  } finally {
    await client.end();
  }
}

function jdbcConfig(topics: string) {
  const database = new URL(target!.url);
  const server = new URL(TEST_POSTGRES_SERVER_URL!);
  return {
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    topics,
    'connection.url': `jdbc:postgresql://${database.host}${database.pathname}`,
    'connection.user': decodeURIComponent(server.username),
    'connection.password': decodeURIComponent(server.password),
    'table.name.format': '${topic}',
    'insert.mode': 'upsert',
    'pk.mode': 'record_key',
    'pk.fields': 'order_key',
    'auto.create': 'true',
  };
}

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

beforeAll(async () => {
  if (!TEST_POSTGRES_SERVER_URL) return;
  target = await createTestPostgresDatabase();
  s3 = await startS3Server({ ...S3, buckets: [S3.bucket] });
  await cluster.start();
  producer = cluster.kafka.producer();
  await eventually(() => producer.connect(), 15_000);
}, 120_000);

afterAll(async () => {
  await producer?.disconnect();
  await cluster.close();
  await s3?.close();
  await target?.drop();
}, 60_000);

describeWithPostgres('single message transforms into PostgreSQL', () => {
  it('routes, filters, inserts, converts and masks in transforms order, and the offsets of dropped records advance', async () => {
    await send('xf.orders', [
      { key: 'order-1', value: { id: 1, item: 'book', card: '4111-1111', placed: '2026-01-02 03:04:05' } },
      { key: 'order-2', value: { id: 2, item: 'pen', card: '5500-0000', placed: '2026-02-03 00:00:00' } },
      { key: 'order-3', value: { id: 3, item: 'ink', card: '3400-0000', placed: '2026-03-04 12:30:00' } },
    ]);
    await send('xf.rehearsal', [
      { key: 'order-9', value: { id: 9, item: 'test', card: '0000', placed: '2026-01-01 00:00:00' } },
      { key: 'order-8', value: { id: 8, item: 'test', card: '0000', placed: '2026-01-01 00:00:00' } },
    ]);
    const created = await connect('PUT', '/connectors/shop-orders/config', {
      ...jdbcConfig('xf.orders,xf.rehearsal'),
      ...STRING_KEYS,
      ...SCHEMALESS_JSON,
      transforms: 'rehearsals,route,origin,placed,mask',
      'transforms.rehearsals.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.rehearsals.predicate': 'isRehearsal',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'xf\\.(.*)',
      'transforms.route.replacement': 'shop_$1',
      'transforms.origin.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.origin.static.field': 'origin',
      'transforms.origin.static.value': 'web-shop',
      'transforms.origin.offset.field': 'kafka_offset',
      'transforms.placed.type': 'org.apache.kafka.connect.transforms.TimestampConverter$Value',
      'transforms.placed.field': 'placed',
      'transforms.placed.format': 'yyyy-MM-dd HH:mm:ss',
      'transforms.placed.target.type': 'Timestamp',
      'transforms.mask.type': 'org.apache.kafka.connect.transforms.MaskField$Value',
      'transforms.mask.fields': 'card',
      predicates: 'isRehearsal',
      'predicates.isRehearsal.type': 'org.apache.kafka.connect.transforms.predicates.TopicNameMatches',
      'predicates.isRehearsal.pattern': 'xf\\.rehearsal',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rows = await eventually(async () => {
      const found = await query(
        `select order_key, id, item, card, origin, kafka_offset, to_char(placed, 'YYYY-MM-DD HH24:MI:SS') as placed from shop_orders order by id`,
      );
      expect(found).toHaveLength(3);
      return found;
    }, 30_000);
    expect(rows).toEqual([
      {
        order_key: 'order-1',
        id: '1',
        item: 'book',
        card: '',
        origin: 'web-shop',
        kafka_offset: '0',
        placed: '2026-01-02 03:04:05',
      },
      {
        order_key: 'order-2',
        id: '2',
        item: 'pen',
        card: '',
        origin: 'web-shop',
        kafka_offset: '1',
        placed: '2026-02-03 00:00:00',
      },
      {
        order_key: 'order-3',
        id: '3',
        item: 'ink',
        card: '',
        origin: 'web-shop',
        kafka_offset: '2',
        placed: '2026-03-04 12:30:00',
      },
    ]);
    const columns = await query(
      `select column_name, data_type from information_schema.columns where table_name = 'shop_orders'`,
    );
    expect(Object.fromEntries(columns.map((column) => [column.column_name, column.data_type]))).toMatchObject(
      {
        placed: 'timestamp without time zone',
        origin: 'text',
      },
    );
    // Neither the rehearsal topic's table nor its rows: the filter dropped them before the router.
    expect(
      await query(`select table_name from information_schema.tables where table_name like '%rehearsal%'`),
    ).toEqual([]);
    await eventually(async () => {
      const offsets = (await connect('GET', '/connectors/shop-orders/offsets')).body.offsets as unknown as {
        partition: { kafka_topic: string };
        offset: { kafka_offset: number };
      }[];
      expect(
        Object.fromEntries(offsets.map((entry) => [entry.partition.kafka_topic, entry.offset.kafka_offset])),
      ).toEqual({ 'xf.orders': 3, 'xf.rehearsal': 2 });
    }, 30_000);
    expect((await statusOf('shop-orders')).tasks).toEqual([
      expect.objectContaining({ id: 0, state: 'RUNNING' }),
    ]);
  });

  it('sends the record a transform fails on to the dead-letter topic under the transform\u2019s class while the records around it arrive', async () => {
    await send('xf.poison', [
      { key: 'order-1', value: { id: 1, qty: '2' } },
      { key: 'order-2', value: { id: 2, qty: 'many' } },
      { key: 'order-3', value: { id: 3, qty: '5' } },
    ]);
    const created = await connect('POST', '/connectors', {
      name: 'poison-cast',
      config: {
        ...jdbcConfig('xf.poison'),
        ...STRING_KEYS,
        ...SCHEMALESS_JSON,
        'table.name.format': 'cast_orders',
        transforms: 'quantity',
        'transforms.quantity.type': 'org.apache.kafka.connect.transforms.Cast$Value',
        'transforms.quantity.spec': 'qty:int32',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'xf.dlq',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(async () => {
      expect(await query('select order_key, qty from cast_orders order by order_key')).toEqual([
        { order_key: 'order-1', qty: '2' },
        { order_key: 'order-3', qty: '5' },
      ]);
    }, 30_000);
    const [dead] = await deadLetters('xf.dlq', 1);
    expect(dead).toMatchObject({
      key: 'order-2',
      value: JSON.stringify({ id: 2, qty: 'many' }),
      headers: {
        '__connect.errors.topic': 'xf.poison',
        '__connect.errors.offset': '1',
        '__connect.errors.connector.name': 'poison-cast',
        '__connect.errors.stage': 'TRANSFORMATION',
        '__connect.errors.class.name': 'org.apache.kafka.connect.transforms.Cast$Value',
        '__connect.errors.exception.class.name': 'org.apache.kafka.connect.errors.DataException',
        '__connect.errors.exception.message': 'Value (many) was out of range for requested data type',
      },
    });
    expect((await statusOf('poison-cast')).tasks).toEqual([
      expect.objectContaining({ id: 0, state: 'RUNNING' }),
    ]);
  });

  it('runs every other transform and predicate in one chain: tombstones and unsourced records dropped, the Debezium envelope unwrapped, flattened, renamed, cast, headers set, read and dropped, the key taken from the value', async () => {
    const change = (id: number, item: string, zone: string, op: string) => ({
      before: op === 'c' ? null : { id, item: 'old' },
      after: {
        id,
        item,
        card: `4111-000${id}`,
        addr: { city: `city-${id}`, zip: `0${id}00` },
        secret: 's',
        qty: `${id}`,
        zone,
      },
      op,
    });
    await producer.send({
      topic: 'xf.shapes',
      messages: [
        { key: 'k1', value: JSON.stringify(change(1, 'book', 'eu', 'c')), headers: { source: 'web' } },
        { key: 'k2', value: JSON.stringify(change(2, 'pen', 'us', 'u')), headers: { source: 'web' } },
        { key: 'k3', value: JSON.stringify(change(3, 'unsourced', 'eu', 'c')) },
        { key: 'k1', value: null, headers: { source: 'web' } },
      ],
    });
    const created = await connect('PUT', '/connectors/every-shape/config', {
      ...jdbcConfig('xf.shapes'),
      ...STRING_KEYS,
      ...SCHEMALESS_JSON,
      transforms:
        'tombstones,unsourced,unwrap,flatten,fields,qty,mask,zone,zoned,stamp,stamped,drop,dropped,key,keyId,route',
      'transforms.tombstones.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.tombstones.predicate': 'isTombstone',
      'transforms.unsourced.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.unsourced.predicate': 'hasSource',
      'transforms.unsourced.negate': 'true',
      'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
      'transforms.unwrap.add.fields': 'op',
      'transforms.flatten.type': 'org.apache.kafka.connect.transforms.Flatten$Value',
      'transforms.flatten.delimiter': '_',
      'transforms.fields.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
      'transforms.fields.exclude': 'secret',
      'transforms.fields.renames': 'item:product',
      'transforms.qty.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.qty.spec': 'qty:int64',
      'transforms.mask.type': 'org.apache.kafka.connect.transforms.MaskField$Value',
      'transforms.mask.fields': 'card',
      'transforms.mask.replacement': '****',
      'transforms.zone.type': 'org.apache.kafka.connect.transforms.HeaderFrom$Value',
      'transforms.zone.fields': 'zone',
      'transforms.zone.headers': 'zone',
      'transforms.zone.operation': 'move',
      // Each header's presence made visible as a column by an InsertField under HasHeaderKey.
      'transforms.zoned.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.zoned.static.field': 'zoned',
      'transforms.zoned.static.value': 'yes',
      'transforms.zoned.predicate': 'hasZone',
      'transforms.stamp.type': 'org.apache.kafka.connect.transforms.InsertHeader',
      'transforms.stamp.header': 'stamped',
      'transforms.stamp.value.literal': 'yes',
      'transforms.stamped.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.stamped.static.field': 'stamped',
      'transforms.stamped.static.value': 'yes',
      'transforms.stamped.predicate': 'hasStamp',
      'transforms.drop.type': 'org.apache.kafka.connect.transforms.DropHeaders',
      'transforms.drop.headers': 'zone,stamped',
      'transforms.dropped.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.dropped.static.field': 'zone_after_drop',
      'transforms.dropped.static.value': 'still there',
      'transforms.dropped.predicate': 'hasZone',
      'transforms.key.type': 'org.apache.kafka.connect.transforms.ValueToKey',
      'transforms.key.fields': 'id',
      'transforms.keyId.type': 'org.apache.kafka.connect.transforms.ExtractField$Key',
      'transforms.keyId.field': 'id',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'xf\\.(.*)',
      'transforms.route.replacement': 'catalog_$1',
      predicates: 'isTombstone,hasSource,hasZone,hasStamp',
      'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      'predicates.hasSource.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'predicates.hasSource.name': 'source',
      'predicates.hasZone.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'predicates.hasZone.name': 'zone',
      'predicates.hasStamp.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'predicates.hasStamp.name': 'stamped',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(async () => {
      const offsets = (await connect('GET', '/connectors/every-shape/offsets')).body.offsets as unknown as {
        offset: { kafka_offset: number };
      }[];
      expect(offsets.map((entry) => entry.offset.kafka_offset)).toEqual([4]);
    }, 30_000);
    const columns = await query(
      `select column_name, data_type from information_schema.columns where table_name = 'catalog_shapes'`,
    );
    expect(Object.fromEntries(columns.map((column) => [column.column_name, column.data_type]))).toEqual({
      order_key: expect.any(String),
      id: expect.any(String),
      product: 'text',
      card: 'text',
      addr_city: 'text',
      addr_zip: 'text',
      qty: 'bigint',
      __op: 'text',
      zoned: 'text',
      stamped: 'text',
    });
    expect(
      await query(
        'select order_key::text, id::text, product, card, addr_city, addr_zip, qty::text, __op, zoned, stamped from catalog_shapes order by id',
      ),
    ).toEqual([
      {
        order_key: '1',
        id: '1',
        product: 'book',
        card: '****',
        addr_city: 'city-1',
        addr_zip: '0100',
        qty: '1',
        __op: 'c',
        zoned: 'yes',
        stamped: 'yes',
      },
      {
        order_key: '2',
        id: '2',
        product: 'pen',
        card: '****',
        addr_city: 'city-2',
        addr_zip: '0200',
        qty: '2',
        __op: 'u',
        zoned: 'yes',
        stamped: 'yes',
      },
    ]);
    expect((await statusOf('every-shape')).tasks).toEqual([
      expect.objectContaining({ id: 0, state: 'RUNNING' }),
    ]);
  });

  it('drops tombstones and routes by the record timestamp into S3 objects, with the value extracted, narrowed and hoisted', async () => {
    // 2026-01-02T03:04:05Z: TimestampRouter formats the record's timestamp in UTC.
    const timestamp = String(Date.UTC(2026, 0, 2, 3, 4, 5));
    await producer.send({
      topic: 'xf.events',
      messages: [1, null, 2, 3].map((n) => ({
        key: `e${n ?? 1}`,
        timestamp,
        // Without the tombstone filter the second line of the object would be a null.
        value:
          n === null
            ? null
            : JSON.stringify({ payload: { n, kind: 'click', user: `u${n}` }, meta: { trace: `t${n}` } }),
      })),
    });
    const created = await connect('PUT', '/connectors/daily-events/config', {
      'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
      topics: 'xf.events',
      's3.bucket.name': S3.bucket,
      's3.region': S3.region,
      'store.url': s3!.url,
      'aws.access.key.id': S3.accessKeyId,
      'aws.secret.access.key': S3.secretAccessKey,
      'flush.size': '3',
      ...STRING_KEYS,
      ...SCHEMALESS_JSON,
      transforms: 'tombstones,payload,keep,hoist,day',
      'transforms.tombstones.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.tombstones.predicate': 'isTombstone',
      predicates: 'isTombstone',
      'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      'transforms.payload.type': 'org.apache.kafka.connect.transforms.ExtractField$Value',
      'transforms.payload.field': 'payload',
      'transforms.keep.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
      'transforms.keep.include': 'n,kind',
      'transforms.hoist.type': 'org.apache.kafka.connect.transforms.HoistField$Value',
      'transforms.hoist.field': 'event',
      'transforms.day.type': 'org.apache.kafka.connect.transforms.TimestampRouter',
      'transforms.day.topic.format': '${topic}-${timestamp}',
      'transforms.day.timestamp.format': 'yyyyMMdd',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const routed = 'xf.events-20260102';
    const lines = await eventually(() => {
      const object = s3!.objects(S3.bucket).get(`topics/${routed}/partition=0/${routed}+0+0000000000.json`);
      expect(object, `no object for ${routed} yet; have ${[...s3!.objects(S3.bucket).keys()]}`).toBeDefined();
      return object!
        .toString()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
    }, 30_000);
    expect(lines).toEqual([1, 2, 3].map((n) => ({ event: { n, kind: 'click' } })));
    expect([...s3!.objects(S3.bucket).keys()].filter((key) => key.startsWith('topics/xf.events/'))).toEqual(
      [],
    );
  });

  it('refuses an unknown transform class on create, naming it', async () => {
    const refused = await connect('POST', '/connectors', {
      name: 'unknown-transform',
      config: {
        ...jdbcConfig('xf.orders'),
        transforms: 'mystery',
        'transforms.mystery.type': 'com.example.Mystery',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('com.example.Mystery');
  });
});
