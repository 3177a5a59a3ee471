/**
 * The parts of Kafka Connect's REST API that tools lean on, answered as Kafka Connect 3.x answers
 * them: create-or-update and patch of a configuration, the expanded listing, restarts with their
 * plan, the topics a connector used and their reset, and validation of transforms and predicates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCluster, writeAcls, type ConnectBody } from '../fixtures/connect-cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';

const S3 = {
  region: 'eu-west-1',
  accessKeyId: 'AKIDREST',
  secretAccessKey: 'rest-secret-key',
  bucket: 'rest',
};
const TOPICS = ['views'];
const T = 'org.apache.kafka.connect.transforms.';

const cluster = connectCluster({
  streamingPorts: '29881-29910',
  clusterName: 'rest-api',
  user: { username: 'rest-user', password: 'a-long-enough-password' },
  grants: { acls: writeAcls(TOPICS) },
  topics: TOPICS,
  producer: true,
  clientId: 'connect-rest-test',
});
const { connect, produce, untilTaskState } = cluster;
let s3: S3Server;

const archive = () => ({
  'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
  topics: 'views',
  's3.bucket.name': S3.bucket,
  's3.region': S3.region,
  'store.url': s3.url,
  'aws.access.key.id': S3.accessKeyId,
  'aws.secret.access.key': S3.secretAccessKey,
  'flush.size': '1',
});

beforeAll(async () => {
  s3 = await startS3Server({ ...S3, buckets: [S3.bucket] });
  await cluster.start();
}, 90_000);

afterAll(async () => {
  await cluster.close();
  await s3?.close();
}, 60_000);

describe('configuration', () => {
  it('creates with PUT …/config (201), then updates (200)', async () => {
    const created = await connect('PUT', '/connectors/views-archive/config', {
      ...archive(),
      'flush.size': '5',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'views-archive',
      type: 'sink',
      config: { 'flush.size': '5' },
    });
    const updated = await connect('PUT', '/connectors/views-archive/config', {
      ...archive(),
      'aws.secret.access.key': '[hidden]',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.config!['flush.size']).toBe('1');
    expect(updated.body.config!['aws.secret.access.key']).toBe('[hidden]');
  });

  it('patches with PATCH …/config: given keys set, a null removing one, the rest kept', async () => {
    const patched = await connect('PATCH', '/connectors/views-archive/config', { 'topics.dir': 'archive' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await connect('GET', '/connectors/views-archive/config')).body).toMatchObject({
      'topics.dir': 'archive',
      'flush.size': '1',
      'aws.secret.access.key': '[hidden]',
    });
    expect((await connect('PATCH', '/connectors/views-archive/config', { 'topics.dir': null })).status).toBe(
      200,
    );
    expect((await connect('GET', '/connectors/views-archive/config')).body['topics.dir']).toBeUndefined();
    expect((await connect('PATCH', '/connectors/nobody/config', { a: 'b' })).status).toBe(404);
  });

  it('refuses a patch that leaves the configuration invalid, changing nothing', async () => {
    const refused = await connect('PATCH', '/connectors/views-archive/config', { 'flush.size': null });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('flush.size');
    expect((await connect('GET', '/connectors/views-archive/config')).body['flush.size']).toBe('1');
  });
});

describe('status, restarts and topics', () => {
  it('lists connectors expanded with status and info', async () => {
    await untilTaskState('views-archive', 'RUNNING');
    const both = await connect('GET', '/connectors?expand=status&expand=info');
    expect(both.body['views-archive']).toEqual({
      status: {
        name: 'views-archive',
        connector: { state: 'RUNNING', worker_id: expect.any(String) },
        tasks: [{ id: 0, state: 'RUNNING', worker_id: expect.any(String) }],
        type: 'sink',
      },
      info: {
        name: 'views-archive',
        config: expect.objectContaining({ 'aws.secret.access.key': '[hidden]' }),
        tasks: [{ connector: 'views-archive', task: 0 }],
        type: 'sink',
      },
    });
    const info = await connect('GET', '/connectors?expand=info');
    expect(Object.keys(info.body['views-archive']!)).toEqual(['info']);
    expect((await connect('GET', '/connectors')).body).toEqual(['views-archive']);
  });

  it('answers a restart with onlyFailed while nothing failed with the status as it is (202)', async () => {
    const answer = await connect(
      'POST',
      '/connectors/views-archive/restart?includeTasks=true&onlyFailed=true',
    );
    expect(answer.status).toBe(202);
    expect(answer.body.connector!.state).toBe('RUNNING');
    expect(answer.body.tasks![0]!.state).toBe('RUNNING');
  });

  it('answers a restart with includeTasks with the connector and its tasks RESTARTING (202)', async () => {
    const answer = await connect('POST', '/connectors/views-archive/restart?includeTasks=true');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      name: 'views-archive',
      connector: { state: 'RESTARTING' },
      tasks: [{ id: 0, state: 'RESTARTING' }],
    });
    await untilTaskState('views-archive', 'RUNNING');
  });

  it('answers the plain restart with 204 and no body', async () => {
    expect(await connect('POST', '/connectors/views-archive/restart')).toEqual({
      status: 204,
      body: undefined,
    });
    await untilTaskState('views-archive', 'RUNNING');
  });

  it('lists the topics a connector used, and forgets them on reset', async () => {
    await produce('views', [{ value: { page: '/' } }]);
    await eventually(async () => {
      expect((await connect('GET', '/connectors/views-archive/topics')).body).toEqual({
        'views-archive': { topics: ['views'] },
      });
    }, 20_000);
    expect(await connect('PUT', '/connectors/views-archive/topics/reset')).toEqual({
      status: 202,
      body: undefined,
    });
    expect((await connect('GET', '/connectors/views-archive/topics')).body).toEqual({
      'views-archive': { topics: [] },
    });
    expect((await connect('PUT', '/connectors/ghost/topics/reset')).status).toBe(404);
  });
});

describe('transforms in validation and creation', () => {
  const errorsOf = (body: ConnectBody) =>
    Object.fromEntries(
      (body.configs as ConnectBody[])
        .filter((info) => info.value!.errors!.length > 0)
        .map((info) => [info.value!.name, info.value!.errors]),
    );

  it('validates each alias\u2019s keys, naming an unknown class and a missing key, with error_count', async () => {
    const answer = await connect('PUT', '/connector-plugins/S3SinkConnector/config/validate', {
      ...archive(),
      name: 'v',
      transforms: 'route,mystery',
      'transforms.route.type': `${T}RegexRouter`,
      'transforms.route.regex': 'views',
      'transforms.mystery.type': 'com.example.Mystery',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.error_count).toBe(2);
    expect(errorsOf(answer.body)).toEqual({
      'transforms.route.replacement': [
        'Missing required configuration "transforms.route.replacement" which has no default value.',
      ],
      'transforms.mystery.type': [
        'Invalid value com.example.Mystery for configuration transforms.mystery.type: Class com.example.Mystery could not be found.',
      ],
    });
    expect(answer.body.groups).toEqual(
      expect.arrayContaining(['Transforms', 'Predicates', 'Transforms: route']),
    );
    const typeKey = (answer.body.configs as ConnectBody[]).find(
      (info) => String(info.definition!.name) === 'transforms.route.type',
    )!;
    expect(typeKey.definition).toMatchObject({ type: 'CLASS', required: true, group: 'Transforms: route' });
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'an unknown transform class',
      { transforms: 'x', 'transforms.x.type': 'com.example.Nope' },
      'transforms.x.type',
    ],
    [
      'an unknown predicate class',
      {
        transforms: 'x',
        'transforms.x.type': `${T}Filter`,
        'transforms.x.predicate': 'p',
        predicates: 'p',
        'predicates.p.type': 'com.example.Pred',
      },
      'Class com.example.Pred could not be found',
    ],
    [
      'a missing required key',
      { transforms: 'x', 'transforms.x.type': `${T}MaskField$Value` },
      'transforms.x.fields',
    ],
  ])('refuses to create with %s (400 naming it)', async (_case, transforms, named) => {
    const refused = await connect('POST', '/connectors', {
      name: 'refused',
      config: { ...archive(), ...transforms },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(named);
    expect((await connect('GET', '/connectors/refused')).status).toBe(404);
  });

  it('creates a connector whose transforms and predicates are all valid', async () => {
    const created = await connect('POST', '/connectors', {
      name: 'views-filtered',
      config: {
        ...archive(),
        transforms: 'dropTombstones,tag',
        'transforms.dropTombstones.type': `${T}Filter`,
        'transforms.dropTombstones.predicate': 'isTombstone',
        'transforms.tag.type': `${T}InsertField$Value`,
        'transforms.tag.static.field': 'source',
        'transforms.tag.static.value': 'web',
        predicates: 'isTombstone',
        'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await connect('DELETE', '/connectors/views-filtered')).status).toBe(204);
  });
});
