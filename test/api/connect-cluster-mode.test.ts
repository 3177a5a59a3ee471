/**
 * The Kafka Connect REST API in cluster mode (the kubernetes workload runtime): a connector
 * created through it becomes a Strimzi KafkaConnector in the cluster's namespace, beside the
 * cluster's KafkaConnect; pause, restart and delete reach the object; and what Strimzi writes into
 * the object's status is what `GET /connectors/<name>/status` answers. Strimzi itself is not run:
 * the test writes its status as the cluster operator would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import type { KubeObject } from '../../control-plane/types.js';
import { systemClock } from '../../observability/clock.js';
import { STREAMING_CLUSTER } from '../../crds/streaming.js';
import {
  KAFKA_CONNECT,
  KAFKA_CONNECTOR,
  KUBERNETES_WORKLOAD_KINDS,
  SECRET,
} from '../../workloads/kubernetes/resource-types.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
const PASSWORD = 'db-Password-never-in-an-object';
const SINK = {
  'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
  topics: 'orders',
  'connection.url': 'jdbc:postgresql://db.example:5432/shop',
  'connection.user': 'shop',
  'connection.password': PASSWORD,
  'insert.mode': 'insert',
};

let app: TestPlatform;
let owner: TestAccount;
let apiKey: string;
let clusterId: string;
let namespace: string;
let worker: { stop(): Promise<void> };
let database: TestPostgresDatabase | undefined;

async function api(method: string, path: string, body?: unknown) {
  const response = await app.call(method, path, { token: owner.token, body });
  return { status: response.status, body: (await response.json()) as Json };
}

async function connect(method: string, path: string, body?: unknown) {
  const response = await app.request(`/streaming/${clusterId}/connect${path}`, {
    method,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

const connectorObject = () => app.store.get(KAFKA_CONNECTOR, namespace, 'orders-sink');

beforeAll(async () => {
  // The data plane is PostgreSQL, as in a cluster, when the run has a server; else SQLite.
  database = await createTestPostgresDatabase();
  app = await startPlatform({
    ...(database ? { databaseUrl: database.url } : {}),
    clock: systemClock,
    // The cluster's operators are not run: the test writes what they would.
    controllers: false,
    env: { CLOUDPLANE_WORKLOAD_RUNTIME: 'kubernetes' },
    extraKinds: KUBERNETES_WORKLOAD_KINDS,
  });
  owner = await registerAndSignIn(app);
  const created = await api('POST', '/v1/streaming/clusters', { name: 'pipelines', region: 'us-east-1' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  clusterId = (created.body.data as Json).id as string;
  const [cluster] = (await app.store.list(STREAMING_CLUSTER)).items;
  namespace = cluster!.metadata.namespace!;
  await app.store.updateStatus(STREAMING_CLUSTER, {
    ...cluster!,
    status: {
      phase: 'running',
      bootstrapServers: ['esc-kafka-bootstrap:9093'],
      caCertificate: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
    },
  } as KubeObject);
  const key = await api('POST', '/v1/auth/api-keys', {
    name: 'connect',
    scopes: ['streaming:read', 'streaming:write'],
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  apiKey = (key.body.data as Json).key as string;
  worker = app.platform.startConnectWorker();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await database?.drop();
});

describe('Kafka Connect in cluster mode', () => {
  it('makes a connector a KafkaConnector of the cluster’s KafkaConnect, its password kept out of it', async () => {
    const created = await connect('POST', '/connectors', { name: 'orders-sink', config: SINK });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const object = await eventually(connectorObject, 15_000);
    const connectObject = await app.store.get(
      KAFKA_CONNECT,
      namespace,
      object.metadata.labels!['strimzi.io/cluster']!,
    );
    expect(connectObject.metadata.annotations?.['strimzi.io/use-connector-resources']).toBe('true');
    expect(object.spec).toMatchObject({
      class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
      tasksMax: 1,
      state: 'running',
      config: { topics: 'orders', 'connection.password': expect.stringMatching(/^\$\{secrets:/) },
    });
    expect(JSON.stringify(object)).not.toContain(PASSWORD);
    const secrets = (await app.store.list(SECRET, { namespace })).items;
    expect(
      secrets.some((secret) => JSON.stringify(secret).includes(Buffer.from(PASSWORD).toString('base64'))),
    ).toBe(true);
  });

  it('answers UNASSIGNED until Strimzi reports, then what Strimzi copied from the workers', async () => {
    await eventually(async () => {
      const status = await connect('GET', '/connectors/orders-sink/status');
      expect(status.body).toMatchObject({
        name: 'orders-sink',
        connector: { state: 'UNASSIGNED' },
        tasks: [],
      });
    }, 15_000);
    const object = await connectorObject();
    await app.store.updateStatus(KAFKA_CONNECTOR, {
      ...object,
      status: {
        observedGeneration: object.metadata.generation,
        conditions: [{ type: 'Ready', status: 'True' }],
        connectorStatus: {
          name: 'orders-sink',
          connector: { state: 'RUNNING', worker_id: '10.0.0.7:8083' },
          tasks: [{ id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' }],
          type: 'sink',
        },
        topics: ['orders'],
      },
    });
    await eventually(async () => {
      const status = await connect('GET', '/connectors/orders-sink/status');
      expect(status).toEqual({
        status: 200,
        body: {
          name: 'orders-sink',
          connector: { state: 'RUNNING', worker_id: '10.0.0.7:8083' },
          tasks: [{ id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' }],
          type: 'sink',
        },
      });
    }, 15_000);
    expect((await connect('GET', '/connectors/orders-sink/topics')).body).toEqual({
      'orders-sink': { topics: ['orders'] },
    });
  });

  it('tells a task the workers report failed as a Warning Event on the cluster', async () => {
    // Read again each time: each write moves the object's resourceVersion.
    const reported = async (tasks: Json[]) => {
      const object = await connectorObject();
      await app.store.updateStatus(KAFKA_CONNECTOR, {
        ...object,
        status: {
          ...(object.status as Json),
          connectorStatus: {
            name: 'orders-sink',
            connector: { state: 'RUNNING', worker_id: '10.0.0.7:8083' },
            tasks,
            type: 'sink',
          },
        },
      });
    };
    await reported([
      {
        id: 0,
        state: 'FAILED',
        worker_id: '10.0.0.7:8083',
        trace:
          'org.apache.kafka.connect.errors.ConnectException: java.sql.SQLException: Connection to db.example:5432 refused\n\tat io.confluent.connect.jdbc.sink.JdbcSinkTask.put(JdbcSinkTask.java:122)',
      },
    ]);
    const warning = await eventually(async () => {
      const events = (await app.store.list(EVENT_KIND, { namespace })).items as unknown as CoreEvent[];
      const found = events.find((event) => event.reason === 'ConnectorTaskFailed');
      expect(found).toBeDefined();
      return found!;
    }, 15_000);
    expect(warning).toMatchObject({ type: 'Warning', involvedObject: { kind: 'StreamingCluster' } });
    expect(warning.message).toContain('connector orders-sink task 0 failed');
    expect(warning.message).toContain('Connection to db.example:5432 refused');
    expect(warning.message).not.toContain('JdbcSinkTask.java');
    expect(warning.message).not.toContain(PASSWORD);
    await reported([{ id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' }]);
    await eventually(async () => {
      const status = await connect('GET', '/connectors/orders-sink/status');
      expect(status.body.tasks).toEqual([{ id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' }]);
    }, 15_000);
  });

  it('pauses the connector through spec.state and restarts it through Strimzi’s annotation', async () => {
    expect((await connect('PUT', '/connectors/orders-sink/pause')).status).toBe(202);
    await eventually(
      async () => expect((await connectorObject()).spec).toMatchObject({ state: 'paused' }),
      15_000,
    );
    const restarted = await connect('POST', '/connectors/orders-sink/restart?includeTasks=true');
    expect(restarted.status).toBe(202);
    await eventually(
      async () =>
        expect((await connectorObject()).metadata.annotations?.['strimzi.io/restart']).toBe('includeTasks'),
      15_000,
    );
  });

  it('reads a sink’s offsets from its group, and leaves changing them to the workers', async () => {
    // No broker answers here: the group has no committed offsets to show.
    expect(await connect('GET', '/connectors/orders-sink/offsets')).toEqual({
      status: 200,
      body: { offsets: [] },
    });
    expect((await connect('PUT', '/connectors/orders-sink/stop')).status).toBe(204);
    const reset = await connect('DELETE', '/connectors/orders-sink/offsets');
    expect(reset).toEqual({
      status: 400,
      body: { error_code: 400, message: expect.stringContaining('run by the cluster') },
    });
  });

  it('removes the KafkaConnector of a deleted connector', async () => {
    expect((await connect('DELETE', '/connectors/orders-sink')).status).toBe(204);
    await eventually(
      async () =>
        expect(await connectorObject().catch((error: { reason?: string }) => error.reason)).toBe('NotFound'),
      15_000,
    );
  });
});
