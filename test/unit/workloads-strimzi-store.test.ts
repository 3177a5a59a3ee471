import { AssignerProtocol } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { KUBERNETES_WORKLOAD_KINDS } from '../../workloads/kubernetes/index.js';
import {
  KAFKA,
  KAFKA_NODE_POOL,
  KAFKA_TOPIC,
  KAFKA_USER,
  SECRET,
} from '../../workloads/kubernetes/resource-types.js';
import { DEFAULT_SETTINGS } from '../../workloads/kubernetes/settings.js';
import {
  kubernetesStreaming,
  type AdminConnection,
  type StreamingAdmin,
} from '../../workloads/kubernetes/streaming.js';
import type {
  StreamingClusterWorkload,
  StreamingRuntime,
  StreamingTopicSpec,
  StreamingUserSpec,
} from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const NAMESPACE = 'org-acme';
const NAME = 'esc-0123456789ab';
const ADMIN = `${NAME}-cloudplane-admin`;
const BOOTSTRAP = `${NAME}-kafka-bootstrap.${NAMESPACE}.svc:9093`;
const CA = '-----BEGIN CERTIFICATE-----\nCLUSTER-CA\n-----END CERTIFICATE-----\n';
const PASSWORD = 'user-Secret-0123456789';

const cluster: StreamingClusterWorkload = {
  id: 'esc_0123456789ab',
  organization: NAMESPACE,
  tier: 'pro',
  limits: { brokers: 3, partitions: 10, storageBytes: 100 * 1024 ** 3, retentionMaxMs: 30 * 86_400_000 },
};
const topic: StreamingTopicSpec = {
  name: 'Orders_v2',
  partitions: 3,
  replicas: 3,
  retentionMs: 86_400_000,
  cleanupPolicy: 'delete',
};
const user: StreamingUserSpec = {
  name: 'billing',
  credential: { salt: 'c2FsdA==', iterations: 4096, storedKey: 'a2V5', serverKey: 'a2V5' },
  consumerGroup: 'billing',
  acls: [
    {
      resourceType: 'topic',
      patternType: 'literal',
      name: 'Orders_v2',
      operations: ['read'],
      permission: 'allow',
    },
  ],
  password: PASSWORD,
};

const base64 = (text: string) => Buffer.from(text).toString('base64');
const decoded = (secret: KubeObject, key: string) =>
  Buffer.from((secret as KubeObject & { data: Record<string, string> }).data[key]!, 'base64').toString(
    'utf8',
  );

/** A Kafka admin client answering from `broker`: what a running Kafka would hold. */
function fakeAdmin(broker: FakeBroker): StreamingAdmin {
  const partitionsOf = (name: string) => broker.topics[name] ?? [];
  const admin: Partial<StreamingAdmin> = {
    listTopics: async () => Object.keys(broker.topics),
    fetchTopicMetadata: async (options) => ({
      topics: (options?.topics ?? []).map((name) => ({
        name,
        partitions: partitionsOf(name).map((_end, partitionId) => ({
          partitionId,
          leader: partitionId % 3,
          replicas: [0, 1, 2],
          isr: [0, 1, 2],
          partitionErrorCode: 0,
        })),
      })),
    }),
    fetchTopicOffsets: async (name) =>
      partitionsOf(name).map((end, partition) => ({
        partition,
        offset: String(end),
        high: String(end),
        low: '0',
      })),
    describeConfigs: async ({ resources }) =>
      ({
        throttleTime: 0,
        resources: resources.map((resource) => ({
          errorCode: 0,
          errorMessage: null,
          resourceName: resource.name,
          resourceType: resource.type,
          configEntries: [
            {
              configName: 'retention.ms',
              configValue: '3600000',
              isDefault: false,
              isSensitive: false,
              readOnly: false,
              configSynonyms: [],
              configSource: 1,
            },
            {
              configName: 'cleanup.policy',
              configValue: 'compact',
              isDefault: false,
              isSensitive: false,
              readOnly: false,
              configSynonyms: [],
              configSource: 1,
            },
          ],
        })),
      }) as unknown as Awaited<ReturnType<StreamingAdmin['describeConfigs']>>,
    deleteTopics: async ({ topics }) => {
      for (const name of topics) delete broker.topics[name];
    },
    listGroups: async () => ({ groups: [{ groupId: 'billing', protocolType: 'consumer' }] }),
    describeGroups: async (ids) => ({
      groups: ids.map((groupId) => ({
        groupId,
        state: broker.groupState,
        protocol: 'RoundRobinAssigner',
        protocolType: 'consumer',
        members: broker.groupState === 'Stable' ? [member()] : [],
      })),
    }),
    fetchOffsets: async () => [
      {
        topic: 'Orders_v2',
        partitions: broker.committed.map((offset, partition) => ({
          partition,
          offset: String(offset),
          metadata: null,
        })),
      },
    ],
    disconnect: async () => undefined,
  };
  return admin as StreamingAdmin;
}

interface FakeBroker {
  /** Topic → log-end offset per partition. */
  topics: Record<string, number[]>;
  committed: number[];
  groupState: 'Stable' | 'Empty';
  connections: AdminConnection[];
}

function member() {
  return {
    memberId: 'consumer-1',
    clientId: 'billing-app',
    clientHost: '/10.0.0.7',
    memberMetadata: Buffer.alloc(0),
    memberAssignment: AssignerProtocol.MemberAssignment.encode({
      version: 0,
      assignment: { Orders_v2: [1, 0] },
      userData: Buffer.alloc(0),
    }),
  };
}

describe('streaming on Strimzi, the embedded store playing Strimzi', () => {
  let store: EmbeddedStore;
  let runtime: StreamingRuntime;
  let broker: FakeBroker;
  let clock: number;

  beforeEach(() => {
    store = openEmbeddedStore({ path: ':memory:', kinds: [...KUBERNETES_WORKLOAD_KINDS] });
    broker = { topics: {}, committed: [], groupState: 'Stable', connections: [] };
    clock = Date.parse('2026-03-01T10:00:00Z');
    runtime = kubernetesStreaming(
      store,
      capturedLogger().logger,
      { ...DEFAULT_SETTINGS, pollIntervalMs: 5 },
      {
        now: () => clock,
        connectAdmin: async (connection) => {
          broker.connections.push(connection);
          return fakeAdmin(broker);
        },
      },
    );
  });
  afterEach(async () => {
    await store.close();
  });

  /** The cluster operator's part: the Kafka ready, its listener's address, the cluster CA's Secret. */
  async function strimziReady() {
    const kafka = await store.get(KAFKA, NAMESPACE, NAME);
    await store.updateStatus(KAFKA, {
      ...kafka,
      status: {
        observedGeneration: kafka.metadata.generation,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
        listeners: [{ name: 'tls', bootstrapServers: BOOTSTRAP, certificates: [CA] }],
        clusterId: 'k1',
      },
    });
    await store.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `${NAME}-cluster-ca-cert`,
        namespace: NAMESPACE,
        labels: { 'strimzi.io/cluster': NAME },
      },
      data: { 'ca.crt': base64(CA), 'ca.p12': base64('p12') },
    } as KubeObject);
  }

  /** The user operator's part: the user's Secret (named with the prefix) holding the password asked for. */
  async function userOperatorApplied(name: string) {
    const user = await store.get(KAFKA_USER, NAMESPACE, name);
    const asked = await store.get(SECRET, NAMESPACE, `${NAME}-password-${name}`);
    await store.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `${NAME}-user-${name}`,
        namespace: NAMESPACE,
        labels: { 'strimzi.io/cluster': NAME },
      },
      data: { password: base64(decoded(asked, 'password')), 'sasl.jaas.config': base64('jaas') },
    } as KubeObject);
    await store.updateStatus(KAFKA_USER, {
      ...user,
      status: {
        observedGeneration: user.metadata.generation,
        username: name,
        secret: `${NAME}-user-${name}`,
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    });
  }

  it('makes a Kafka, its node pool and the platform’s user; provisioning until Strimzi reports it ready', async () => {
    const first = await runtime.ensureCluster(cluster);
    expect(first).toMatchObject({ realization: 'real', state: 'provisioning', bootstrapServers: [] });
    const kafka = await store.get(KAFKA, NAMESPACE, NAME);
    expect(kafka.spec).toMatchObject({ kafka: { authorization: { type: 'simple' } } });
    expect((await store.get(KAFKA_NODE_POOL, NAMESPACE, `${NAME}-nodes`)).spec).toMatchObject({
      replicas: 3,
    });
    const admin = await store.get(KAFKA_USER, NAMESPACE, ADMIN);
    expect(admin.spec).toMatchObject({
      authorization: {
        acls: expect.arrayContaining([expect.objectContaining({ resource: { type: 'cluster' } })]),
      },
    });

    await strimziReady();
    const ready = await runtime.ensureCluster(cluster);
    expect(ready).toMatchObject({ state: 'ready', bootstrapServers: [BOOTSTRAP], caCertificate: CA });
  });

  it('reads the CA from the cluster CA Secret, not the listener', async () => {
    await runtime.ensureCluster(cluster);
    await strimziReady();
    const kafka = await store.get(KAFKA, NAMESPACE, NAME);
    await store.updateStatus(KAFKA, {
      ...kafka,
      status: {
        ...(kafka.status as object),
        listeners: [{ name: 'tls', bootstrapServers: BOOTSTRAP, certificates: ['OTHER'] }],
      },
    });
    expect((await runtime.ensureCluster(cluster)).caCertificate).toBe(CA);
  });

  it('keeps the platform’s password across ensures', async () => {
    await runtime.ensureCluster(cluster);
    const first = decoded(await store.get(SECRET, NAMESPACE, `${NAME}-password-${ADMIN}`), 'password');
    await runtime.ensureCluster(cluster);
    expect(decoded(await store.get(SECRET, NAMESPACE, `${NAME}-password-${ADMIN}`), 'password')).toBe(first);
  });

  it('makes a KafkaTopic named for Kubernetes with the Kafka topic name in spec, partitions only growing', async () => {
    await runtime.ensureCluster(cluster);
    const observed = await runtime.ensureTopic(cluster, topic);
    expect(observed).toMatchObject({ name: 'Orders_v2', partitions: 3, replicas: 3, partitionDetails: [] });
    const [resource] = (await store.list(KAFKA_TOPIC, { namespace: NAMESPACE })).items;
    expect(resource!.metadata.name).toMatch(/^esc-0123456789ab-orders-v2-[0-9a-f]{8}$/);
    expect(resource!.spec).toEqual({
      topicName: 'Orders_v2',
      partitions: 3,
      replicas: 3,
      config: { 'retention.ms': 86_400_000, 'cleanup.policy': 'delete' },
    });
    await runtime.ensureTopic(cluster, { ...topic, partitions: 5 });
    await runtime.ensureTopic(cluster, { ...topic, partitions: 2 });
    expect((await store.get(KAFKA_TOPIC, NAMESPACE, resource!.metadata.name)).spec).toMatchObject({
      partitions: 5,
    });
    expect((await runtime.ensureCluster(cluster)).usage.partitions).toBe(5);
  });

  it.each([
    ['PartitionLimit', { name: 'big', partitions: 11 }],
    ['RetentionLimit', { name: 'forever', retentionMs: -1 }],
    ['RetentionLimit', { name: 'long', retentionMs: 31 * 86_400_000 }],
    ['ReplicationLimit', { name: 'wide', replicas: 4 }],
    ['InvalidTopicName', { name: 'no spaces' }],
  ])('refuses with %s: %o', async (reason, change) => {
    await runtime.ensureCluster(cluster);
    await expect(runtime.ensureTopic(cluster, { ...topic, ...change })).rejects.toMatchObject({ reason });
  });

  it('counts the partitions of the cluster’s other topics against its tier', async () => {
    await runtime.ensureCluster(cluster);
    await runtime.ensureTopic(cluster, { ...topic, partitions: 8 });
    await expect(
      runtime.ensureTopic(cluster, { ...topic, name: 'more', partitions: 3 }),
    ).rejects.toMatchObject({
      reason: 'PartitionLimit',
    });
  });

  it('answers what Strimzi refused about a topic', async () => {
    await runtime.ensureCluster(cluster);
    await runtime.ensureTopic(cluster, topic);
    const [resource] = (await store.list(KAFKA_TOPIC, { namespace: NAMESPACE })).items;
    await store.updateStatus(KAFKA_TOPIC, {
      ...resource!,
      status: {
        observedGeneration: 1,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'KafkaError', message: 'min.insync.replicas too high' },
        ],
      },
    });
    await expect(runtime.ensureTopic(cluster, topic)).rejects.toMatchObject({
      reason: 'TopicRefused',
      message: expect.stringContaining('KafkaError: min.insync.replicas too high'),
    });
  });

  it('makes a KafkaUser reading its password from a Secret, never holding it', async () => {
    await runtime.ensureCluster(cluster);
    await runtime.ensureUser(cluster, user);
    const kafkaUser = await store.get(KAFKA_USER, NAMESPACE, 'billing');
    expect(JSON.stringify(kafkaUser)).not.toContain(PASSWORD);
    const secret = await store.get(SECRET, NAMESPACE, `${NAME}-password-billing`);
    expect(decoded(secret, 'password')).toBe(PASSWORD);
    expect(kafkaUser.metadata.annotations).toEqual({
      'cloudplane.dev/password-version': secret.metadata.resourceVersion,
    });
    expect(kafkaUser.spec).toMatchObject({
      authentication: {
        password: { valueFrom: { secretKeyRef: { name: `${NAME}-password-billing`, key: 'password' } } },
      },
      authorization: {
        acls: [
          {
            type: 'allow',
            resource: { type: 'topic', name: 'Orders_v2', patternType: 'literal' },
            operations: ['Read'],
          },
          {
            type: 'allow',
            resource: { type: 'group', name: 'billing', patternType: 'literal' },
            operations: ['Read'],
          },
        ],
      },
    });

    const rotatedUser: StreamingUserSpec = { ...user, password: 'rotated-Secret-9876543210' };
    await runtime.ensureUser(cluster, rotatedUser);
    const rotated = await store.get(SECRET, NAMESPACE, `${NAME}-password-billing`);
    expect(decoded(rotated, 'password')).toBe('rotated-Secret-9876543210');
    expect((await store.get(KAFKA_USER, NAMESPACE, 'billing')).metadata.annotations).toEqual({
      'cloudplane.dev/password-version': rotated.metadata.resourceVersion,
    });

    await runtime.removeUser(cluster, 'billing');
    await runtime.removeUser(cluster, 'billing');
    expect(
      (await store.list(KAFKA_USER, { namespace: NAMESPACE })).items.map((each) => each.metadata.name),
    ).toEqual([ADMIN]);
  });

  it.each([
    ['PasswordRequired', { password: undefined }],
    ['InvalidName', { name: ADMIN }],
    ['InvalidName', { name: 'Not_A_Name' }],
  ])('refuses a user with %s', async (reason, change) => {
    await runtime.ensureCluster(cluster);
    await expect(runtime.ensureUser(cluster, { ...user, ...change })).rejects.toMatchObject({ reason });
  });

  it('refuses a user name another cluster of the organization holds', async () => {
    const other = { ...cluster, id: 'esc_bbbbbbbbbbbb' };
    await runtime.ensureCluster(cluster);
    await runtime.ensureCluster(other);
    await runtime.ensureUser(cluster, user);
    await expect(runtime.ensureUser(other, user)).rejects.toMatchObject({ reason: 'NameConflict' });
  });

  it('lists the KafkaTopics while the cluster starts, then every topic Kafka has as the platform’s user', async () => {
    await runtime.ensureCluster(cluster);
    await runtime.ensureTopic(cluster, topic);
    expect((await runtime.listTopics(cluster)).map((each) => each.name)).toEqual(['Orders_v2']);
    expect(broker.connections).toEqual([]);

    await strimziReady();
    await userOperatorApplied(ADMIN);
    broker.topics = { Orders_v2: [4, 0, 2], made_by_a_client: [7], __consumer_offsets: [0] };
    const topics = await runtime.listTopics(cluster);
    expect(topics.map((each) => each.name)).toEqual(['Orders_v2', 'made_by_a_client']);
    expect(topics[0]).toMatchObject({
      partitions: 3,
      replicas: 3,
      retentionMs: 3_600_000,
      cleanupPolicy: 'compact',
      partitionDetails: [
        { partition: 0, leader: 0, logStartOffset: 0, logEndOffset: 4, sizeBytes: 0 },
        { partition: 1, leader: 1, logStartOffset: 0, logEndOffset: 0, sizeBytes: 0 },
        { partition: 2, leader: 2, logStartOffset: 0, logEndOffset: 2, sizeBytes: 0 },
      ],
    });
    const admin = await store.get(SECRET, NAMESPACE, `${NAME}-password-${ADMIN}`);
    expect(broker.connections[0]).toEqual({
      brokers: [BOOTSTRAP],
      caCertificate: CA,
      username: ADMIN,
      password: decoded(admin, 'password'),
    });

    await runtime.removeTopic(cluster, 'made_by_a_client');
    expect(Object.keys(broker.topics)).not.toContain('made_by_a_client');
  });

  it('reads groups and lag with the admin client, judging the lag over a window', async () => {
    await runtime.ensureCluster(cluster);
    expect(await runtime.listGroups(cluster)).toEqual([]);
    await strimziReady();
    await userOperatorApplied(ADMIN);
    broker.topics = { Orders_v2: [10, 5] };
    broker.committed = [10, 2];

    expect(await runtime.listGroups(cluster)).toEqual([
      {
        groupId: 'billing',
        state: 'Stable',
        protocol: 'RoundRobinAssigner',
        members: [
          {
            memberId: 'consumer-1',
            clientId: 'billing-app',
            host: '/10.0.0.7',
            assignments: [{ topic: 'Orders_v2', partitions: [0, 1] }],
          },
        ],
        topics: ['Orders_v2'],
      },
    ]);

    const first = await runtime.groupLag(cluster, 'billing');
    expect(first).toMatchObject({
      groupId: 'billing',
      totalLag: 3,
      status: 'OK',
      partitions: [
        { topic: 'Orders_v2', partition: 0, committedOffset: 10, logEndOffset: 10, lag: 0, status: 'OK' },
        { topic: 'Orders_v2', partition: 1, committedOffset: 2, logEndOffset: 5, lag: 3, status: 'OK' },
      ],
    });
    clock += 30_000;
    await runtime.groupLag(cluster, 'billing');
    clock += 30_000;
    const stalled = await runtime.groupLag(cluster, 'billing');
    expect(stalled).toMatchObject({ status: 'ERR', timeLagSeconds: 60 });
    expect(stalled!.partitions[1]).toMatchObject({ status: 'STALL', timeLagSeconds: 60 });

    broker.groupState = 'Empty';
    expect((await runtime.groupLag(cluster, 'billing'))!.partitions[1]!.status).toBe('STOP');
  });

  it('removes every object of the cluster, topics held by the topic operator’s finalizer too', async () => {
    await runtime.ensureCluster(cluster);
    await runtime.ensureTopic(cluster, topic);
    await runtime.ensureUser(cluster, user);
    await strimziReady();
    const [resource] = (await store.list(KAFKA_TOPIC, { namespace: NAMESPACE })).items;
    await store.patch(KAFKA_TOPIC, NAMESPACE, resource!.metadata.name, {
      metadata: { finalizers: ['strimzi.io/topic-operator'] },
    });
    await runtime.removeCluster(cluster);
    await runtime.removeCluster(cluster);
    for (const type of [KAFKA, KAFKA_NODE_POOL, KAFKA_TOPIC, KAFKA_USER, SECRET]) {
      expect((await store.list(type, { namespace: NAMESPACE })).items).toEqual([]);
    }
    expect((await runtime.ensureCluster(cluster)).state).toBe('provisioning');
  });
});
