import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../control-plane/types.js';
import {
  ADMIN_ACLS,
  DEFAULT_STRIMZI_SETTINGS,
  kafkaTopicName,
  kafkaUserAcls,
  kafkaUserName,
  readKafka,
  renderKafka,
  renderKafkaTopic,
  renderKafkaUser,
  renderNodePool,
  strimziRefusal,
} from '../../workloads/kubernetes/strimzi-render.js';
import type {
  StreamingClusterWorkload,
  StreamingTier,
  StreamingTopicSpec,
  StreamingUserSpec,
} from '../../workloads/runtime.js';

const GB = 1024 ** 3;
const TIERS: Record<StreamingTier, StreamingClusterWorkload['limits']> = {
  starter: { brokers: 1, partitions: 50, storageBytes: 10 * GB, retentionMaxMs: 7 * 86_400_000 },
  pro: { brokers: 3, partitions: 500, storageBytes: 100 * GB, retentionMaxMs: 30 * 86_400_000 },
  enterprise: { brokers: 5, partitions: null, storageBytes: 1024 * GB, retentionMaxMs: null },
};

const clusterOf = (tier: StreamingTier): StreamingClusterWorkload => ({
  id: 'esc_0123456789ab',
  organization: 'org-acme',
  tier,
  limits: TIERS[tier],
});

const schemaDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/strimzi');
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const schemas: Record<string, ValidateFunction> = Object.fromEntries(
  ['Kafka', 'KafkaNodePool', 'KafkaTopic', 'KafkaUser'].map((kind) => [
    kind,
    ajv.compile(
      JSON.parse(
        fs.readFileSync(path.join(schemaDir, `${kind.toLowerCase()}.schema.json`), 'utf8'),
      ) as object,
    ),
  ]),
);

/** Asserts an object is what Strimzi's v1 API takes, naming each violation. */
function expectValid(object: KubeObject) {
  const validate = schemas[object.kind]!;
  const valid = validate(object);
  expect(validate.errors ?? [], `${object.kind} ${object.metadata.name}`).toEqual([]);
  expect(valid).toBe(true);
}

const topic: StreamingTopicSpec = {
  name: 'Orders.v2_EU',
  partitions: 6,
  replicas: 3,
  retentionMs: 604_800_000,
  cleanupPolicy: 'delete',
};

const user: StreamingUserSpec = {
  name: 'billing-app',
  credential: { salt: 's', iterations: 4096, storedKey: 'k', serverKey: 'v' },
  consumerGroup: 'billing-*',
  acls: [
    {
      resourceType: 'topic',
      patternType: 'prefixed',
      name: 'orders.',
      operations: ['read', 'describe'],
      permission: 'allow',
    },
    {
      resourceType: 'topic',
      patternType: 'literal',
      name: 'audit',
      operations: ['write'],
      permission: 'deny',
    },
  ],
};

describe('a Kafka per tier', () => {
  it.each([
    ['starter', 1, 1, '10Gi'],
    ['pro', 3, 3, '100Gi'],
    ['enterprise', 5, 3, '615Gi'],
  ] as const)(
    '%s: %i combined KRaft nodes, replication %i, %s per broker',
    (tier, nodes, replication, size) => {
      const cluster = clusterOf(tier);
      const kafka = renderKafka(cluster, DEFAULT_STRIMZI_SETTINGS);
      const pool = renderNodePool(cluster, DEFAULT_STRIMZI_SETTINGS);
      expectValid(kafka);
      expectValid(pool);
      expect(kafka.metadata).toMatchObject({ name: 'esc-0123456789ab', namespace: 'org-acme' });
      expect(pool.metadata.labels).toMatchObject({ 'strimzi.io/cluster': 'esc-0123456789ab' });
      expect(pool.spec).toEqual({
        replicas: nodes,
        roles: ['controller', 'broker'],
        storage: {
          type: 'jbod',
          volumes: [{ id: 0, type: 'persistent-claim', size, kraftMetadata: 'shared', deleteClaim: true }],
        },
      });
      expect(kafka.spec).toMatchObject({
        kafka: {
          config: {
            'default.replication.factor': replication,
            'offsets.topic.replication.factor': replication,
            'min.insync.replicas': Math.max(1, replication - 1),
            'auto.create.topics.enable': false,
          },
        },
      });
    },
  );

  it('listens on TLS with SCRAM-SHA-512, authorizes with simple ACLs, runs the topic and user operators', () => {
    const kafka = renderKafka(clusterOf('pro'), { ...DEFAULT_STRIMZI_SETTINGS, kafkaVersion: '4.1.0' });
    expect(kafka.spec).toMatchObject({
      kafka: {
        version: '4.1.0',
        listeners: [
          { name: 'tls', port: 9093, type: 'internal', tls: true, authentication: { type: 'scram-sha-512' } },
        ],
        authorization: { type: 'simple' },
      },
      entityOperator: { topicOperator: {}, userOperator: { secretPrefix: 'esc-0123456789ab-user-' } },
    });
  });

  it('uses the configured volume where the tier’s storage is custom, in the configured class', () => {
    const cluster = { ...clusterOf('enterprise'), limits: { ...TIERS.enterprise, storageBytes: null } };
    const pool = renderNodePool(cluster, { customStorageGi: 250, storageClass: 'fast-ssd' });
    expectValid(pool);
    expect(pool.spec).toMatchObject({ storage: { volumes: [{ size: '250Gi', class: 'fast-ssd' }] } });
  });
});

describe('topics', () => {
  it.each([
    [{ ...topic }, { 'retention.ms': 604_800_000, 'cleanup.policy': 'delete' }],
    [
      { ...topic, name: 'events', retentionMs: -1, cleanupPolicy: 'compact' as const },
      { 'retention.ms': -1, 'cleanup.policy': 'compact' },
    ],
  ])('renders %o with its partitions, replicas and config', (spec, config) => {
    const rendered = renderKafkaTopic(clusterOf('pro'), spec);
    expectValid(rendered);
    expect(rendered.spec).toEqual({
      topicName: spec.name,
      partitions: spec.partitions,
      replicas: spec.replicas,
      config,
    });
    expect(rendered.metadata.labels).toMatchObject({ 'strimzi.io/cluster': 'esc-0123456789ab' });
  });

  it.each([
    ['Orders.v2_EU', /^esc-0123456789ab-orders-v2-eu-[0-9a-f]{8}$/],
    ['___', /^esc-0123456789ab-[0-9a-f]{8}$/],
    ['x'.repeat(249), /^esc-0123456789ab-x{40}-[0-9a-f]{8}$/],
  ])('names the KafkaTopic of %s as a DNS name', (name, pattern) => {
    expect(kafkaTopicName(clusterOf('starter'), name)).toMatch(pattern);
  });

  it('keeps apart topics whose names read the same', () => {
    const cluster = clusterOf('starter');
    expect(kafkaTopicName(cluster, 'a.b')).not.toBe(kafkaTopicName(cluster, 'a_b'));
  });

  it.each(['', '.', '..', 'has space', 'x'.repeat(250), 'ü'])('refuses the topic name %j', (name) => {
    expect(() => renderKafkaTopic(clusterOf('starter'), { ...topic, name })).toThrow(/is not a topic name/);
  });
});

describe('users', () => {
  it('reads its password from the platform’s Secret and maps its ACLs and consumer group', () => {
    const rendered = renderKafkaUser(clusterOf('pro'), user.name, kafkaUserAcls(user), '42');
    expectValid(rendered);
    expect(rendered.metadata).toMatchObject({
      name: 'billing-app',
      labels: { 'strimzi.io/cluster': 'esc-0123456789ab' },
      annotations: { 'cloudplane.dev/password-version': '42' },
    });
    expect(rendered.spec).toEqual({
      authentication: {
        type: 'scram-sha-512',
        password: {
          valueFrom: { secretKeyRef: { name: 'esc-0123456789ab-password-billing-app', key: 'password' } },
        },
      },
      authorization: {
        type: 'simple',
        acls: [
          {
            type: 'allow',
            resource: { type: 'topic', name: 'orders.', patternType: 'prefix' },
            operations: ['Read', 'Describe'],
          },
          {
            type: 'deny',
            resource: { type: 'topic', name: 'audit', patternType: 'literal' },
            operations: ['Write'],
          },
          {
            type: 'allow',
            resource: { type: 'group', name: 'billing-', patternType: 'prefix' },
            operations: ['Read'],
          },
        ],
      },
    });
  });

  it.each([
    ['billing', { type: 'group', name: 'billing', patternType: 'literal' }],
    ['billing-*', { type: 'group', name: 'billing-', patternType: 'prefix' }],
    ['*', { type: 'group', name: '*', patternType: 'literal' }],
  ])('gives READ on the consumer group %s', (consumerGroup, resource) => {
    expect(kafkaUserAcls({ acls: [], consumerGroup })).toEqual([
      { type: 'allow', resource, operations: ['Read'] },
    ]);
  });

  it('maps transactional id ACLs and IDEMPOTENT_WRITE on the cluster to Strimzi’s resources', () => {
    const acls = kafkaUserAcls({
      acls: [
        {
          resourceType: 'transactional_id',
          patternType: 'prefixed',
          name: 'billing-',
          operations: ['write', 'describe'],
          permission: 'allow',
        },
        {
          resourceType: 'cluster',
          patternType: 'literal',
          name: 'kafka-cluster',
          operations: ['idempotent_write'],
          permission: 'allow',
        },
      ],
    });
    expectValid(renderKafkaUser(clusterOf('pro'), 'billing-txn', acls, '1'));
    expect(acls).toEqual([
      {
        type: 'allow',
        resource: { type: 'transactionalId', name: 'billing-', patternType: 'prefix' },
        operations: ['Write', 'Describe'],
      },
      { type: 'allow', resource: { type: 'cluster' }, operations: ['IdempotentWrite'] },
    ]);
  });

  it.each(['read', 'write', 'describe', 'create', 'delete', 'alter'] as const)(
    'maps the operation %s to Strimzi’s',
    (operation) => {
      const rendered = renderKafkaUser(
        clusterOf('starter'),
        'u',
        kafkaUserAcls({
          acls: [
            {
              resourceType: 'group',
              patternType: 'literal',
              name: 'g',
              operations: [operation],
              permission: 'allow',
            },
          ],
        }),
        '1',
      );
      expectValid(rendered);
    },
  );

  it('gives the platform’s own user everything', () => {
    expectValid(renderKafkaUser(clusterOf('starter'), 'esc-0123456789ab-cloudplane-admin', ADMIN_ACLS, '1'));
  });

  it.each(['Billing', 'under_score', '-dash', 'x'.repeat(230)])('refuses the user name %j', (name) => {
    expect(() => kafkaUserName(clusterOf('starter'), name)).toThrow(/cannot name a user/);
  });
});

describe('what Strimzi reports', () => {
  const kafka = (status: Record<string, unknown>, generation = 1): KubeObject => ({
    apiVersion: 'kafka.strimzi.io/v1',
    kind: 'Kafka',
    metadata: { name: 'esc-0123456789ab', generation },
    status,
  });
  const listeners = [
    {
      name: 'tls',
      bootstrapServers: 'esc-0123456789ab-kafka-bootstrap.org-acme.svc:9093',
      certificates: ['LISTENER-PEM'],
    },
  ];
  const ready = [{ type: 'Ready', status: 'True' }];

  it.each([
    ['missing', undefined, 'CA', { state: 'degraded', message: 'its Strimzi Kafka is missing' }],
    [
      'ready',
      kafka({ observedGeneration: 1, conditions: ready, listeners }),
      'CA',
      {
        state: 'ready',
        bootstrapServers: ['esc-0123456789ab-kafka-bootstrap.org-acme.svc:9093'],
        caCertificate: 'CA',
      },
    ],
    [
      'ready, the CA from the listener',
      kafka({ observedGeneration: 1, conditions: ready, listeners }),
      undefined,
      { state: 'ready', caCertificate: 'LISTENER-PEM' },
    ],
    [
      'a newer generation',
      kafka({ observedGeneration: 1, conditions: ready, listeners }, 2),
      'CA',
      { state: 'provisioning', message: 'Strimzi is updating the Kafka' },
    ],
    [
      'not ready',
      kafka({ conditions: [{ type: 'NotReady', status: 'True', message: 'Creating nodes' }] }),
      undefined,
      { state: 'provisioning', message: 'Strimzi is starting the Kafka: Creating nodes' },
    ],
  ])('%s', (_case, object, ca, expected) => {
    expect(readKafka(object, ca)).toMatchObject(expected);
  });

  it.each([
    [
      {
        observedGeneration: 2,
        conditions: [{ type: 'Ready', status: 'False', reason: 'KafkaError', message: 'bad config' }],
      },
      'KafkaError: bad config',
    ],
    [{ observedGeneration: 1, conditions: [{ type: 'Ready', status: 'False', message: 'old' }] }, undefined],
    [{ observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True' }] }, undefined],
  ])('reads a refusal from %o', (status, refusal) => {
    const object: KubeObject = {
      apiVersion: 'v',
      kind: 'KafkaTopic',
      metadata: { name: 't', generation: 2 },
      status,
    };
    expect(strimziRefusal(object)).toBe(refusal);
  });
});
