/**
 * Event-streaming clusters through the REST API on the local workload runtime: real brokers, a
 * Kafka client (kafkajs over SASL_SSL with SCRAM-SHA-512, trusting the cluster's CA) that
 * produces and consumes in a group, and the group's lag read back through the API.
 */
import net from 'node:net';
import { CompressionTypes, Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import {
  STREAMING_CLUSTER,
  STREAMING_TOPIC,
  STREAMING_USER,
  type StreamingCluster,
  type StreamingTopic,
  type StreamingUser,
} from '../../crds/streaming.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform({
    clock: systemClock,
    env: { CLOUDPLANE_STREAMING_PORTS: '29400-29440', CLOUDPLANE_STREAMING_REFRESH_MS: '300' },
  });
  owner = await registerAndSignIn(app);
}, 60_000);
afterAll(async () => app?.close(), 60_000);

async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const auth = headers['x-api-key'] ? {} : { token: owner.token };
  const response = await app.call(method, route, { ...auth, body, headers });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}
const data = (answer: { body: Json }) => answer.body.data as Json;
const errorOf = (answer: { body: Json }) => answer.body.error as { code: string; message: string };

async function apiKey(scopes: string[]): Promise<string> {
  const created = await call('POST', '/v1/auth/api-keys', { name: scopes.join(' '), scopes });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return data(created).key as string;
}

let cluster: Json;
let clustersPath: string;
let bootstrap: { bootstrap_servers: string[]; ca_certificate: string };

function kafkaClient(username: string, password: string): Kafka {
  return new Kafka({
    clientId: 'streaming-api-test',
    brokers: bootstrap.bootstrap_servers,
    ssl: { ca: [bootstrap.ca_certificate] },
    sasl: { mechanism: 'scram-sha-512', username, password },
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
  });
}

describe('clusters', () => {
  it('creates a starter cluster that comes up running with its tier, URLs and price', async () => {
    const created = await call('POST', '/v1/streaming/clusters', { name: 'events', region: 'us-east-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    cluster = data(created);
    expect(cluster).toMatchObject({
      name: 'events',
      tier: 'starter',
      region: 'us-east-1',
      status: 'provisioning',
      brokers: 1,
      limits: { storage_gb: 10, partitions: 50, retention_max: '7d' },
      monthly_price_usd: 29,
      schema_registry_url: `${app.url}/streaming/${cluster.id as string}/schema-registry`,
      connect_url: `${app.url}/streaming/${cluster.id as string}/connect`,
    });
    expect(cluster.id).toMatch(/^esc_[0-9a-f]{12}$/);
    clustersPath = `/v1/streaming/clusters/${cluster.id as string}`;
    cluster = await eventually(async () => {
      const current = data(await call('GET', clustersPath));
      expect(current.status, JSON.stringify(current)).toBe('running');
      return current;
    }, 30_000);
    expect(cluster.bootstrap_servers).toEqual([expect.stringMatching(/^[\w.-]+:\d+$/)]);
  });

  it('tells clients how to connect: SASL_SSL, SCRAM-SHA-512 and the CA', async () => {
    const answer = await call('GET', `${clustersPath}/bootstrap`);
    expect(answer.status).toBe(200);
    bootstrap = data(answer) as typeof bootstrap;
    expect(bootstrap).toMatchObject({
      bootstrap_servers: cluster.bootstrap_servers,
      security_protocol: 'SASL_SSL',
      sasl_mechanism: 'SCRAM-SHA-512',
    });
    expect(bootstrap.ca_certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('lists clusters filtered by status and tier', async () => {
    const running = await call('GET', '/v1/streaming/clusters?status=running&tier=starter');
    expect((running.body.data as Json[]).map((row) => row.id)).toEqual([cluster.id]);
    expect(running.body.meta).toMatchObject({ total: 1, page: 1, per_page: 20 });
    const pro = await call('GET', '/v1/streaming/clusters?tier=pro');
    expect(pro.body.data).toEqual([]);
  });

  it.each([
    [{ name: 'x', tier: 'platinum', region: 'us-east-1' }, 422, 'tier'],
    [{ name: 'x', region: 'mars-1' }, 422, "region must be one of the platform's regions"],
    [{ name: 'events', region: 'us-east-1' }, 409, 'a streaming cluster named events exists'],
  ])('refuses %j with %i naming the rule', async (body, status, message) => {
    const answer = await call('POST', '/v1/streaming/clusters', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(errorOf(answer).message).toContain(message);
  });
});

describe('topics', () => {
  it('creates a topic that the brokers then have, with its partitions', async () => {
    const created = await call('POST', `${clustersPath}/topics`, {
      name: 'orders',
      partitions: 3,
      retention: '3d',
      cleanup_policy: 'delete',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(data(created)).toMatchObject({ name: 'orders', partitions: 3, replicas: 1, retention: '3d' });
    const detail = await eventually(async () => {
      const current = data(await call('GET', `${clustersPath}/topics/orders`));
      expect(current.status, JSON.stringify(current)).toBe('ready');
      return current;
    }, 15_000);
    expect(detail.partition_details).toHaveLength(3);
    expect((detail.partition_details as Json[])[0]).toMatchObject({
      partition: 0,
      log_start_offset: 0,
      log_end_offset: 0,
    });
    const list = await call('GET', `${clustersPath}/topics`);
    expect((list.body.data as Json[]).map((topic) => topic.name)).toEqual(['orders']);
    const quotas = (await call('GET', '/v1/quotas')).body.data as Json[];
    expect(quotas).toContainEqual({ resource: 'streaming_clusters', limit: null, used: 1 });
    expect(quotas).toContainEqual({ resource: 'streaming_partitions', limit: null, used: 3 });
  });

  it('grows partitions and refuses a shrink with 422', async () => {
    const grown = await call('PATCH', `${clustersPath}/topics/orders`, { partitions: 4 });
    expect(grown.status, JSON.stringify(grown.body)).toBe(200);
    expect(data(grown).partitions).toBe(4);
    await eventually(async () => {
      const current = data(await call('GET', `${clustersPath}/topics/orders`));
      expect(current.partition_details).toHaveLength(4);
    }, 15_000);
    const shrunk = await call('PATCH', `${clustersPath}/topics/orders`, { partitions: 2 });
    expect(shrunk.status).toBe(422);
    expect(errorOf(shrunk).message).toBe('partitions: partitions can only grow: it is 4, asked 2');
  });

  it.each([
    [{ name: 'big', partitions: 60 }, 'partition limit of 50 (tier starter)'],
    [{ name: 'long', retention: '8d' }, "retention 8d is over the starter tier's maximum of 7d"],
    [{ name: 'forever', retention: '-1' }, 'retention -1 (forever) is only for the enterprise tier'],
    [{ name: 'orders/eu' }, 'a topic name may hold only ASCII letters, digits'],
    [{ name: '..' }, 'a topic name cannot be ".."'],
    [{ name: 'copies', replicas: 2 }, "replicas 2 is more than the cluster's 1 broker"],
    [{ name: 'eager', flush_messages: 0 }, 'flush_messages must be a whole number of at least 1, or -1'],
  ])('refuses %j with 422 naming the rule', async (body, message) => {
    const answer = await call('POST', `${clustersPath}/topics`, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(errorOf(answer).message).toContain(message);
  });

  it("creates a topic flushed as Kafka's default, where every other is durable before each answer", async () => {
    const created = await call('POST', `${clustersPath}/topics`, { name: 'os-flushed', flush_messages: -1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(data(created)).toMatchObject({ name: 'os-flushed', flush_messages: -1, flush_ms: -1 });
    expect(data(await call('GET', `${clustersPath}/topics/orders`))).toMatchObject({
      flush_messages: 1,
      flush_ms: -1,
    });
    const refused = await call('PATCH', `${clustersPath}/topics/os-flushed`, { flush_ms: 'soon' });
    expect(refused.status).toBe(400);
    await eventually(async () => {
      expect(data(await call('GET', `${clustersPath}/topics/os-flushed`)).status).toBe('ready');
    }, 15_000);
    expect((await call('DELETE', `${clustersPath}/topics/os-flushed`)).status).toBe(204);
  });

  it('refuses a duplicate topic with 409', async () => {
    const answer = await call('POST', `${clustersPath}/topics`, { name: 'orders' });
    expect(answer.status).toBe(409);
  });

  it('deletes a topic from the brokers', async () => {
    expect((await call('POST', `${clustersPath}/topics`, { name: 'Scratch.pad_1' })).status).toBe(201);
    await eventually(async () => {
      expect(data(await call('GET', `${clustersPath}/topics/Scratch.pad_1`)).status).toBe('ready');
    }, 15_000);
    expect((await call('DELETE', `${clustersPath}/topics/Scratch.pad_1`)).status).toBe(204);
    await eventually(async () => {
      expect((await call('GET', `${clustersPath}/topics/Scratch.pad_1`)).status).toBe(404);
    }, 15_000);
  });
});

describe('users and a Kafka client', () => {
  let password: string;

  it('creates a user and shows its password once', async () => {
    const created = await call('POST', `${clustersPath}/users`, {
      name: 'billing-app',
      consumer_group: 'billing*',
      acls: [
        {
          resource_type: 'topic',
          pattern_type: 'prefixed',
          name: 'orders',
          operations: ['read', 'write', 'describe'],
          permission: 'allow',
        },
        {
          resource_type: 'topic',
          pattern_type: 'literal',
          name: 'clickstream',
          operations: ['create', 'write', 'describe', 'alter', 'delete'],
          permission: 'allow',
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    password = data(created).password as string;
    expect(password).toMatch(/^[\w-]{32}$/);
    expect(data(created)).toMatchObject({
      name: 'billing-app',
      mechanism: 'SCRAM-SHA-512',
      consumer_group: 'billing*',
    });
    const shown = data(await call('GET', `${clustersPath}/users/billing-app`));
    expect(shown).not.toHaveProperty('password');
    const row = await app.database.kysely.selectFrom('streaming_user_credentials').selectAll().execute();
    expect(JSON.stringify(row)).not.toContain(password);
    expect(JSON.stringify(app.logLines)).not.toContain(password);
    await eventually(async () => {
      expect(data(await call('GET', `${clustersPath}/users/billing-app`)).status).toBe('ready');
    }, 15_000);
  });

  it('takes transactional_id and cluster ACLs, and refuses a cluster resource of another name with 422', async () => {
    const transactional = {
      resource_type: 'transactional_id',
      pattern_type: 'prefixed',
      name: 'billing-',
      operations: ['write', 'describe'],
      permission: 'allow',
    };
    const idempotent = {
      resource_type: 'cluster',
      pattern_type: 'literal',
      name: 'kafka-cluster',
      operations: ['idempotent_write'],
      permission: 'allow',
    };
    const created = await call('POST', `${clustersPath}/users`, {
      name: 'billing-txn',
      acls: [transactional, idempotent],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(data(await call('GET', `${clustersPath}/users/billing-txn`)).acls).toEqual([
      transactional,
      idempotent,
    ]);
    const refused = await call('POST', `${clustersPath}/users`, {
      name: 'billing-bad',
      acls: [{ ...idempotent, name: 'orders' }],
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('acls[0].name');
  });

  it('takes ALTER and DESCRIBE on the cluster, the rights to manage ACLs, and refuses READ there with 422', async () => {
    const manager = {
      resource_type: 'cluster',
      pattern_type: 'literal',
      name: 'kafka-cluster',
      operations: ['alter', 'describe'],
      permission: 'allow',
    };
    const created = await call('POST', `${clustersPath}/users`, { name: 'billing-acls', acls: [manager] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(data(await call('GET', `${clustersPath}/users/billing-acls`)).acls).toEqual([manager]);
    const refused = await call('POST', `${clustersPath}/users`, {
      name: 'billing-bad',
      acls: [{ ...manager, operations: ['read'] }],
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('acls[0].operations');
  });

  it('reveals the password to write scope, audited, and refuses a read-only key with 403', async () => {
    const writer = await apiKey(['streaming:write', 'streaming:read']);
    const revealed = await call('GET', `${clustersPath}/users/billing-app?reveal_password=true`, undefined, {
      'x-api-key': writer,
    });
    expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
    expect(data(revealed).password).toBe(password);
    const audit = app.logLines.find((line) => line.audit === 'streaming_user.password_revealed');
    expect(audit).toMatchObject({ user: 'billing-app', principal: { kind: 'api_key' } });
    expect(audit?.requestId).toEqual(expect.any(String));
    const events = await app.database.kysely
      .selectFrom('platform_events')
      .select('type')
      .where('type', '=', 'streaming_user.password_revealed')
      .execute();
    expect(events).toHaveLength(1);

    const reader = await apiKey(['streaming:read']);
    const refused = await call('GET', `${clustersPath}/users/billing-app?reveal_password=true`, undefined, {
      'x-api-key': reader,
    });
    expect(refused.status).toBe(403);
    const plain = await call('GET', `${clustersPath}/users/billing-app`, undefined, { 'x-api-key': reader });
    expect(plain.status).toBe(200);
  });

  it('produces and consumes in a group, whose lag then shows in the API and the metrics', async () => {
    const kafka = kafkaClient('billing-app', password);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: 'orders',
      messages: [{ value: 'one' }, { value: 'two' }, { value: 'three' }].map((message) => ({
        ...message,
        partition: 0,
      })),
    });
    const consumer: Consumer = kafka.consumer({ groupId: 'billing-workers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await eventually(() => expect(seen.sort()).toEqual(['one', 'three', 'two']), 30_000);
    const groups = await eventually(async () => {
      const answer = await call('GET', `${clustersPath}/consumer-groups`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const rows = answer.body.data as Json[];
      expect(rows.map((row) => row.group_id)).toContain('billing-workers');
      return rows;
    }, 15_000);
    expect(groups.find((row) => row.group_id === 'billing-workers')).toMatchObject({ topics: ['orders'] });
    const detail = data(await call('GET', `${clustersPath}/consumer-groups/billing-workers`));
    expect(detail).toMatchObject({ group_id: 'billing-workers', state: 'Stable' });
    expect(detail.members).toHaveLength(1);
    await consumer.disconnect();

    await producer.send({
      topic: 'orders',
      messages: [
        { value: 'four', partition: 0 },
        { value: 'five', partition: 0 },
      ],
    });
    await producer.disconnect();
    const lag = await eventually(async () => {
      const answer = data(await call('GET', `${clustersPath}/consumer-groups/billing-workers/lag`));
      expect(answer.total_lag).toBe(2);
      return answer;
    }, 15_000);
    expect(lag.partitions).toContainEqual(
      expect.objectContaining({
        topic: 'orders',
        partition: 0,
        committed_offset: 3,
        log_end_offset: 5,
        lag: 2,
      }),
    );
    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toContain(
      `streaming_consumer_group_lag{cluster="${cluster.id as string}",group="billing-workers",topic="orders",partition="0"} 2`,
    );
    // The cluster's own status carries its groups and their lag, for kubectl.
    await eventually(async () => {
      const objects = (await app.store.list<StreamingCluster>(STREAMING_CLUSTER)).items;
      const object = objects.find((item) => item.metadata.name === (cluster.id as string).replace('_', '-'));
      expect(object?.status?.consumerGroups).toContainEqual(
        expect.objectContaining({ groupId: 'billing-workers', totalLag: 2 }),
      );
    }, 15_000);
  }, 60_000);

  it('browses the recent records of a topic, as text or base64, in one partition or all, audited', async () => {
    const producer = kafkaClient('billing-app', password).producer();
    await producer.connect();
    await producer.send({
      topic: 'orders',
      compression: CompressionTypes.GZIP,
      messages: [
        { partition: 1, key: 'order-6', value: 'six', headers: { source: 'checkout' } },
        { partition: 1, key: 'order-7', value: Buffer.from([0xff, 0xfe, 0x00]) },
      ],
    });
    await producer.disconnect();
    const messages = `${clustersPath}/topics/orders/messages`;

    const partitionZero = await call('GET', `${messages}?partition=0`);
    expect(partitionZero.status, JSON.stringify(partitionZero.body)).toBe(200);
    const rows = partitionZero.body.data as Json[];
    expect(rows.map((row) => [row.offset, row.value])).toEqual([
      [0, 'one'],
      [1, 'two'],
      [2, 'three'],
      [3, 'four'],
      [4, 'five'],
    ]);
    expect(rows[0]).toMatchObject({ partition: 0, key: null, headers: [], encoding: 'utf8' });
    expect(Date.parse(rows[0]!.timestamp as string)).not.toBeNaN();

    const fromOffset = await call('GET', `${messages}?partition=0&offset=3&limit=1`);
    expect((fromOffset.body.data as Json[]).map((row) => row.value)).toEqual(['four']);

    const gzipped = (await call('GET', `${messages}?partition=1`)).body.data as Json[];
    expect(gzipped).toEqual([
      expect.objectContaining({
        offset: 0,
        key: 'order-6',
        value: 'six',
        headers: [{ key: 'source', value: 'checkout' }],
        encoding: 'utf8',
      }),
      expect.objectContaining({
        offset: 1,
        key: Buffer.from('order-7').toString('base64'),
        value: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'),
        encoding: 'base64',
      }),
    ]);

    // Across partitions: the newest `limit`, oldest first.
    const newest = (await call('GET', `${messages}?limit=2`)).body.data as Json[];
    expect(newest.map((row) => row.partition)).toEqual([1, 1]);
    expect(newest).toHaveLength(2);

    const reader = await apiKey(['streaming:read']);
    const byReader = await call('GET', `${messages}?partition=0&limit=1`, undefined, { 'x-api-key': reader });
    expect(byReader.status).toBe(200);
    const outsider = await apiKey(['vpc:read']);
    expect((await call('GET', messages, undefined, { 'x-api-key': outsider })).status).toBe(403);

    const badPartition = await call('GET', `${messages}?partition=9`);
    expect(badPartition.status).toBe(422);
    expect(badPartition.body.error).toMatchObject({ details: { field: 'partition' } });
    expect((await call('GET', `${messages}?limit=101`)).status).toBe(400);
    expect((await call('GET', `${clustersPath}/topics/nothing-here/messages`)).status).toBe(404);

    const audited = app.logLines.filter((line) => line.audit === 'streaming_topic.messages_read');
    expect(audited.length).toBeGreaterThanOrEqual(5);
    expect(audited.at(-1)).toMatchObject({
      topic: 'orders',
      cluster: expect.any(String),
      records: expect.any(Number),
    });
    // The audit line says who read, never what was read.
    expect(JSON.stringify(audited)).not.toContain('checkout');
  }, 60_000);

  it('refuses a client whose password is wrong', async () => {
    const producer = kafkaClient('billing-app', 'not-the-password').producer();
    await expect(producer.connect()).rejects.toThrow(/SASL|authentication|credentials/i);
  }, 30_000);

  it('shows a topic a Kafka client made as a StreamingTopic created by kafka', async () => {
    const admin = kafkaClient('billing-app', password).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'clickstream', numPartitions: 2 }] });
    await admin.disconnect();
    const topic = await eventually(async () => {
      const rows = (await call('GET', `${clustersPath}/topics`)).body.data as Json[];
      const found = rows.find((row) => row.name === 'clickstream');
      expect(found).toBeDefined();
      return found!;
    }, 15_000);
    expect(topic).toMatchObject({ partitions: 2, created_by: 'kafka' });
    const objects = (await app.store.list<StreamingTopic>(STREAMING_TOPIC)).items;
    expect(objects.find((object) => object.spec?.name === 'clickstream')?.metadata.labels).toMatchObject({
      'cloudplane.dev/created-by': 'kafka',
    });
  }, 30_000);

  /** The app's kafkajs admin, connected once the topic made over the protocol is ready over REST. */
  async function adminOnceClickstreamReady() {
    const admin = kafkaClient('billing-app', password).admin();
    await admin.connect();
    await eventually(async () => {
      const rows = (await call('GET', `${clustersPath}/topics`)).body.data as Json[];
      expect(rows.find((row) => row.name === 'clickstream')?.status).toBe('ready');
    }, 5_000);
    return admin;
  }

  it('takes flush.messages and flush.ms over REST to the broker, and shows them altered over the protocol', async () => {
    const admin = await adminOnceClickstreamReady();
    const patched = await call('PATCH', `${clustersPath}/topics/clickstream`, {
      flush_messages: -1,
      flush_ms: 1000,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(data(patched)).toMatchObject({ flush_messages: -1, flush_ms: 1000 });
    const flushConfigs = async () =>
      Object.fromEntries(
        (
          await admin.describeConfigs({
            includeSynonyms: false,
            resources: [{ type: 2, name: 'clickstream', configNames: ['flush.messages', 'flush.ms'] }],
          })
        ).resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]),
      );
    await eventually(async () => {
      expect(await flushConfigs()).toEqual({ 'flush.messages': '9223372036854775807', 'flush.ms': '1000' });
    }, 15_000);
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: 2,
          name: 'clickstream',
          configEntries: [
            { name: 'flush.messages', value: '500' },
            { name: 'flush.ms', value: '1000' },
          ],
        },
      ],
    });
    await eventually(async () => {
      expect(data(await call('GET', `${clustersPath}/topics/clickstream`))).toMatchObject({
        flush_messages: 500,
        flush_ms: 1000,
      });
    }, 5_000);
    const refused = await call('PATCH', `${clustersPath}/topics/clickstream`, { flush_messages: 0 });
    expect(refused.status).toBe(422);
    expect(errorOf(refused).message).toContain('flush_messages must be a whole number of at least 1');
    await admin.disconnect();
  }, 30_000);

  it('shows a retention altered over the Kafka protocol, and lets a topic deleted over it go', async () => {
    const admin = await adminOnceClickstreamReady();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        { type: 2, name: 'clickstream', configEntries: [{ name: 'retention.ms', value: String(3_600_000) }] },
      ],
    });
    // Well inside the cluster's 30 s refresh: the broker's event is what wakes the mirror.
    await eventually(async () => {
      const topic = data(await call('GET', `${clustersPath}/topics/clickstream`));
      expect(topic.retention).toBe('1h');
    }, 5_000);
    await admin.deleteTopics({ topics: ['clickstream'] });
    await admin.disconnect();
    await eventually(async () => {
      const rows = (await call('GET', `${clustersPath}/topics`)).body.data as Json[];
      expect(rows.map((row) => row.name)).not.toContain('clickstream');
    }, 5_000);
  }, 30_000);
});

describe('objects applied with kubectl', () => {
  async function clusterObject(): Promise<StreamingCluster> {
    const { items } = await app.store.list<StreamingCluster>(STREAMING_CLUSTER);
    return items.find((item) => item.spec?.name === 'events')!;
  }

  it('gives a user applied without a password a generated one, which a client then signs in with', async () => {
    const owning = await clusterObject();
    await app.store.create<StreamingUser>(STREAMING_USER, {
      apiVersion: 'cloudplane.dev/v1alpha1',
      kind: 'StreamingUser',
      metadata: { name: 'reporting', namespace: owning.metadata.namespace },
      spec: { cluster: owning.metadata.name, name: 'reporting', acls: [] },
    });
    await eventually(async () => {
      expect(data(await call('GET', `${clustersPath}/users/reporting`)).status).toBe('ready');
    }, 15_000);
    const revealed = data(await call('GET', `${clustersPath}/users/reporting?reveal_password=true`));
    const producer = kafkaClient('reporting', revealed.password as string).producer();
    await producer.connect();
    await producer.disconnect();
    const object = await app.store.get<StreamingUser>(STREAMING_USER, owning.metadata.namespace, 'reporting');
    expect(object.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'StreamingCluster', uid: owning.metadata.uid, controller: true }),
    ]);
  }, 30_000);

  it('puts a topic applied past the partition limit in error, naming the limit', async () => {
    const owning = await clusterObject();
    await app.store.create<StreamingTopic>(STREAMING_TOPIC, {
      apiVersion: 'cloudplane.dev/v1alpha1',
      kind: 'StreamingTopic',
      metadata: { name: 'huge', namespace: owning.metadata.namespace },
      spec: {
        cluster: owning.metadata.name,
        name: 'huge',
        partitions: 100,
        replicas: 1,
        retention: '1d',
        cleanupPolicy: 'delete',
      },
    });
    const topic = await eventually(async () => {
      const current = data(await call('GET', `${clustersPath}/topics/huge`));
      expect(current.status).toBe('error');
      return current;
    }, 15_000);
    expect(topic.message).toContain('partition limit of 50 (tier starter)');
  });

  it('writes hourly usage samples of the cluster, its storage and its registry schemas, with its tier as the plan', async () => {
    const samples = await app.database.kysely
      .selectFrom('usage_samples')
      .selectAll()
      .where('resource_id', '=', cluster.id as string)
      .orderBy('meter')
      .execute();
    expect(samples.map((sample) => [sample.meter, sample.unit, sample.plan, sample.resource_type])).toEqual([
      ['streaming.cluster_hours', 'hour', 'starter', 'streaming_cluster'],
      ['streaming.registry_schema_hours', 'schema-hour', 'starter', 'streaming_cluster'],
      ['streaming.storage_gb_hours', 'GB-hour', 'starter', 'streaming_cluster'],
    ]);
    expect(samples[0]!.quantity).toBe(1);
  });
});

describe('organizations and deletion', () => {
  it("answers 404 for another organization's cluster", async () => {
    const stranger = await registerAndSignIn(app, 'Stranger');
    for (const [method, route] of [
      ['GET', clustersPath],
      ['GET', `${clustersPath}/bootstrap`],
      ['GET', `${clustersPath}/topics`],
      ['GET', `${clustersPath}/users/billing-app`],
      ['GET', `${clustersPath}/consumer-groups`],
      ['DELETE', clustersPath],
    ] as const) {
      const answer = await app.call(method, route, { token: stranger.token });
      expect(answer.status, `${method} ${route}`).toBe(404);
    }
  });

  it('deletes the cluster: 204, then it is gone and its port refuses connections', async () => {
    const [host, port] = (cluster.bootstrap_servers as string[])[0]!.split(':') as [string, string];
    expect((await call('DELETE', clustersPath)).status).toBe(204);
    await eventually(async () => {
      expect((await call('GET', clustersPath)).status).toBe(404);
    }, 15_000);
    await eventually(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect({ host, port: Number(port) });
          socket.once('connect', () => {
            socket.destroy();
            reject(new Error(`port ${port} still accepts connections`));
          });
          socket.once('error', (error: NodeJS.ErrnoException) =>
            error.code === 'ECONNREFUSED' ? resolve() : reject(error),
          );
        }),
      15_000,
    );
    const rows = await app.database.kysely.selectFrom('streaming_user_credentials').selectAll().execute();
    expect(rows).toEqual([]);
    await eventually(async () => {
      expect((await app.store.list<StreamingTopic>(STREAMING_TOPIC)).items).toEqual([]);
      expect((await app.store.list<StreamingUser>(STREAMING_USER)).items).toEqual([]);
    }, 15_000);
  }, 30_000);
});
