import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { kubernetesConnect } from '../../workloads/kubernetes/connect.js';
import {
  KAFKA,
  KAFKA_CONNECT,
  KAFKA_CONNECTOR,
  KAFKA_USER,
  KUBERNETES_WORKLOAD_KINDS,
  ROLE,
  ROLE_BINDING,
  SECRET,
} from '../../workloads/kubernetes/resource-types.js';
import { renderKafka, DEFAULT_STRIMZI_SETTINGS } from '../../workloads/kubernetes/strimzi-render.js';
import type {
  ConnectorSpec,
  ConnectRuntime,
  ConnectUserSpec,
  StreamingClusterWorkload,
} from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const NAMESPACE = 'org-acme';
const CONNECT = 'esc-0123456789ab-connect';
const SECRETS = `${CONNECT}-connector-secrets`;
const PASSWORD = 'Sup3r-secret-db-password';

const clusterOf = (id: string): StreamingClusterWorkload => ({
  id,
  organization: NAMESPACE,
  tier: 'starter',
  limits: { brokers: 1, partitions: 50, storageBytes: 10 * 1024 ** 3, retentionMaxMs: 7 * 86_400_000 },
});
const cluster = clusterOf('esc_0123456789ab');
const user: ConnectUserSpec = {
  name: 'cloudplane-connect.0123456789abcdef',
  acls: [
    {
      resourceType: 'topic',
      patternType: 'literal',
      name: 'orders',
      operations: ['read'],
      permission: 'allow',
    },
  ],
};
const sink: ConnectorSpec = {
  name: 'orders-sink',
  class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
  tasksMax: 1,
  config: { topics: 'orders', 'connection.url': 'jdbc:postgresql://db:5432/shop', 'connection.user': 'shop' },
  secrets: { 'connection.password': PASSWORD },
  state: 'running',
};

const secretData = (secret: KubeObject) =>
  Object.fromEntries(
    Object.entries((secret as KubeObject & { data?: Record<string, string> }).data ?? {}).map(
      ([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')],
    ),
  );

describe('the kubernetes runtime’s Connect workers (Strimzi)', () => {
  let store: EmbeddedStore;
  let runtime: ConnectRuntime;

  beforeEach(async () => {
    store = openEmbeddedStore({ path: ':memory:', kinds: [...KUBERNETES_WORKLOAD_KINDS] });
    runtime = kubernetesConnect(store, capturedLogger().logger);
    await store.create(KAFKA, renderKafka(cluster, DEFAULT_STRIMZI_SETTINGS));
  });
  afterEach(() => store.close());

  it('makes a KafkaConnect owned by the Kafka, its KafkaUser and the Secret reader', async () => {
    await runtime.ensureConnectCluster(cluster, user);
    const kafka = await store.get(KAFKA, NAMESPACE, 'esc-0123456789ab');
    const connect = await store.get(KAFKA_CONNECT, NAMESPACE, CONNECT);
    expect(connect.metadata.ownerReferences?.[0]?.uid).toBe(kafka.metadata.uid);
    expect(connect.metadata.annotations?.['strimzi.io/use-connector-resources']).toBe('true');
    const kafkaUser = await store.get(KAFKA_USER, NAMESPACE, user.name);
    const acls = (kafkaUser.spec as { authorization: { acls: { resource: { name?: string } }[] } })
      .authorization.acls;
    expect(acls.map((acl) => acl.resource.name)).toEqual(
      expect.arrayContaining(['__cloudplane-connect', '__cloudplane-connect-configs', 'orders']),
    );
    const password = await store.get(SECRET, NAMESPACE, `esc-0123456789ab-password-${user.name}`);
    expect(secretData(password).password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await store.get(ROLE, NAMESPACE, `${CONNECT}-secret-reader`);
    await store.get(ROLE_BINDING, NAMESPACE, `${CONNECT}-secret-reader`);
    await store.get(SECRET, NAMESPACE, SECRETS);
  });

  it('keeps the workers’ password across ensures, so they are not rolled', async () => {
    await runtime.ensureConnectCluster(cluster, user);
    const name = `esc-0123456789ab-password-${user.name}`;
    const first = secretData(await store.get(SECRET, NAMESPACE, name)).password;
    await runtime.ensureConnectCluster(cluster, { ...user, acls: [] });
    expect(secretData(await store.get(SECRET, NAMESPACE, name)).password).toBe(first);
  });

  it('refuses a connector before its workers exist', async () => {
    await expect(runtime.ensureConnector(cluster, sink)).rejects.toMatchObject({ reason: 'ConnectMissing' });
  });

  describe('with its workers', () => {
    beforeEach(() => runtime.ensureConnectCluster(cluster, user));

    it('puts a connector’s secrets in the Secret and only references in the KafkaConnector', async () => {
      await runtime.ensureConnector(cluster, sink);
      const connector = await store.get(KAFKA_CONNECTOR, NAMESPACE, 'orders-sink');
      expect(JSON.stringify(connector)).not.toContain(PASSWORD);
      expect(connector.metadata.labels?.['strimzi.io/cluster']).toBe(CONNECT);
      expect(secretData(await store.get(SECRET, NAMESPACE, SECRETS))).toEqual({
        'orders-sink_connection.password': PASSWORD,
      });
      expect(await runtime.listConnectors(cluster)).toEqual(['orders-sink']);
    });

    it('drops keys gone from the configuration, and secrets no longer given', async () => {
      await runtime.ensureConnector(cluster, sink);
      await runtime.ensureConnector(cluster, {
        ...sink,
        config: { topics: 'orders', 'connection.url': 'jdbc:postgresql://db:5432/shop' },
        secrets: {},
        state: 'paused',
      });
      const connector = await store.get(KAFKA_CONNECTOR, NAMESPACE, 'orders-sink');
      expect(connector.spec).toMatchObject({
        state: 'paused',
        config: { topics: 'orders', 'connection.url': 'jdbc:postgresql://db:5432/shop' },
      });
      expect(Object.keys((connector.spec as { config: object }).config)).toHaveLength(2);
      expect(secretData(await store.get(SECRET, NAMESPACE, SECRETS))).toEqual({});
    });

    it('answers what Strimzi reported of the connector', async () => {
      await runtime.ensureConnector(cluster, sink);
      expect(await runtime.observeConnector(cluster, 'orders-sink')).toEqual({
        connector: { state: 'UNASSIGNED', worker_id: '' },
        tasks: [],
        topics: [],
      });
      const written = await store.get(KAFKA_CONNECTOR, NAMESPACE, 'orders-sink');
      await store.updateStatus(KAFKA_CONNECTOR, {
        ...written,
        status: {
          observedGeneration: written.metadata.generation,
          conditions: [{ type: 'Ready', status: 'True' }],
          connectorStatus: {
            name: 'orders-sink',
            connector: { state: 'RUNNING', worker_id: '10.1.2.3:8083' },
            tasks: [{ id: 0, state: 'RUNNING', worker_id: '10.1.2.3:8083' }],
          },
          topics: ['orders'],
        },
      });
      expect(await runtime.observeConnector(cluster, 'orders-sink')).toEqual({
        connector: { state: 'RUNNING', worker_id: '10.1.2.3:8083' },
        tasks: [{ id: 0, state: 'RUNNING', worker_id: '10.1.2.3:8083' }],
        topics: ['orders'],
      });
      expect(await runtime.observeConnector(cluster, 'other')).toBeUndefined();
    });

    it('asks Strimzi for restarts through its annotations', async () => {
      await runtime.ensureConnector(cluster, sink);
      await runtime.restartConnector(cluster, 'orders-sink', { includeTasks: true, onlyFailed: true });
      await runtime.restartTask(cluster, 'orders-sink', 0);
      const connector = await store.get(KAFKA_CONNECTOR, NAMESPACE, 'orders-sink');
      expect(connector.metadata.annotations).toMatchObject({
        'strimzi.io/restart': 'includeTasks,onlyFailed',
        'strimzi.io/restart-task': '0',
      });
    });

    it('refuses a name another cluster’s connector holds in the namespace', async () => {
      const other = clusterOf('esc_ba9876543210');
      await store.create(KAFKA, renderKafka(other, DEFAULT_STRIMZI_SETTINGS));
      await runtime.ensureConnectCluster(other, { ...user, name: 'cloudplane-connect.fedcba9876543210' });
      await runtime.ensureConnector(other, sink);
      await expect(runtime.ensureConnector(cluster, sink)).rejects.toMatchObject({ reason: 'NameConflict' });
      expect(
        await runtime.observeConnector(cluster, 'orders-sink').catch((error: Error) => error.message),
      ).toMatch(/taken in this organization by another cluster/);
    });

    it('removes a connector with its secrets, then the workers with their user', async () => {
      await runtime.ensureConnector(cluster, sink);
      await runtime.removeConnector(cluster, 'orders-sink');
      expect(await runtime.listConnectors(cluster)).toEqual([]);
      expect(secretData(await store.get(SECRET, NAMESPACE, SECRETS))).toEqual({});
      await runtime.removeConnectCluster(cluster, user.name);
      await expect(store.get(KAFKA_CONNECT, NAMESPACE, CONNECT)).rejects.toMatchObject({
        reason: 'NotFound',
      });
      await expect(store.get(KAFKA_USER, NAMESPACE, user.name)).rejects.toMatchObject({ reason: 'NotFound' });
      await expect(store.get(ROLE, NAMESPACE, `${CONNECT}-secret-reader`)).rejects.toMatchObject({
        reason: 'NotFound',
      });
    });
  });
});
