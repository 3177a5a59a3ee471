import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../control-plane/types.js';
import {
  connectName,
  connectorSecretName,
  kafkaConnectorName,
  readKafkaConnector,
  renderConnectorSecret,
  renderKafkaConnect,
  renderKafkaConnector,
  renderSecretReader,
  restartAnnotation,
} from '../../workloads/kubernetes/strimzi-connect-render.js';
import type { ConnectorSpec, StreamingClusterWorkload } from '../../workloads/runtime.js';

const cluster: StreamingClusterWorkload = {
  id: 'esc_0123456789ab',
  organization: 'org-acme',
  tier: 'starter',
  limits: { brokers: 1, partitions: 50, storageBytes: 10 * 1024 ** 3, retentionMaxMs: 7 * 86_400_000 },
};
const kafka: KubeObject = {
  apiVersion: 'kafka.strimzi.io/v1',
  kind: 'Kafka',
  metadata: { name: 'esc-0123456789ab', namespace: 'org-acme', uid: 'kafka-uid' },
};
const connectObject: KubeObject = {
  apiVersion: 'kafka.strimzi.io/v1',
  kind: 'KafkaConnect',
  metadata: { name: 'esc-0123456789ab-connect', namespace: 'org-acme', uid: 'connect-uid' },
};
const PASSWORD = 'Sup3r-secret-db-password';

const sink: ConnectorSpec = {
  name: 'orders-sink',
  class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
  tasksMax: 1,
  config: {
    topics: 'orders',
    'connection.url': 'jdbc:postgresql://db.example:5432/shop',
    'connection.user': 'shop',
  },
  secrets: { 'connection.password': PASSWORD },
  state: 'running',
};

const schemaDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/strimzi');
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const schemas: Record<string, ValidateFunction> = Object.fromEntries(
  ['KafkaConnect', 'KafkaConnector'].map((kind) => [
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

const withStatus = (status: Record<string, unknown>, generation = 1): KubeObject => ({
  ...renderKafkaConnector(cluster, sink),
  metadata: { name: 'orders-sink', namespace: 'org-acme', generation },
  status,
});

describe('the KafkaConnect of a streaming cluster', () => {
  const connect = renderKafkaConnect(cluster, { name: 'cloudplane-connect.0123456789abcdef' }, {}, kafka);

  it('is what Strimzi v1 takes', () => expectValid(connect));

  it('manages its connectors through KafkaConnector resources and goes with its Kafka', () => {
    expect(connect.metadata.annotations).toEqual({ 'strimzi.io/use-connector-resources': 'true' });
    expect(connect.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'kafka.strimzi.io/v1',
        kind: 'Kafka',
        name: kafka.metadata.name,
        uid: 'kafka-uid',
        blockOwnerDeletion: false,
      },
    ]);
    expect(connect.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'cloudplane',
      'cloudplane.dev/workload': 'esc_0123456789ab',
    });
    expect(connect.metadata.labels).not.toHaveProperty('strimzi.io/cluster');
  });

  it('reaches the TLS listener as its SCRAM user, trusting the cluster CA', () => {
    expect(connect.spec).toMatchObject({
      replicas: 1,
      bootstrapServers: 'esc-0123456789ab-kafka-bootstrap.org-acme.svc:9093',
      tls: {
        trustedCertificates: [{ secretName: 'esc-0123456789ab-cluster-ca-cert', certificate: 'ca.crt' }],
      },
      authentication: {
        type: 'scram-sha-512',
        username: 'cloudplane-connect.0123456789abcdef',
        passwordSecret: {
          secretName: 'esc-0123456789ab-password-cloudplane-connect.0123456789abcdef',
          password: 'password',
        },
      },
    });
  });

  it('names its group and storage topics per cluster, replicated as the brokers allow', () => {
    const spec = connect.spec as Record<string, unknown> & { config: Record<string, unknown> };
    expect([spec.groupId, spec.configStorageTopic, spec.offsetStorageTopic, spec.statusStorageTopic]).toEqual(
      [
        '__cloudplane-connect',
        '__cloudplane-connect-configs',
        '__cloudplane-connect-offsets',
        '__cloudplane-connect-status',
      ],
    );
    expect(spec.config['config.storage.replication.factor']).toBe(1);
    expect(spec.config['config.providers']).toBe('secrets');
    expect(spec.config['config.providers.secrets.class']).toBe(
      'io.strimzi.kafka.KubernetesSecretConfigProvider',
    );
  });

  it('lets only its own ServiceAccount read only the connectors’ Secret', () => {
    const [role, binding] = renderSecretReader(cluster, connect) as [
      KubeObject & { rules: unknown },
      KubeObject & { subjects: unknown; roleRef: unknown },
    ];
    expect(role.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: [connectorSecretName(cluster)],
        verbs: ['get'],
      },
    ]);
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: `${connectName(cluster)}-connect`, namespace: 'org-acme' },
    ]);
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: role.metadata.name,
    });
  });
});

describe('a KafkaConnector', () => {
  const connector = renderKafkaConnector(cluster, sink, connectObject);

  it('is what Strimzi v1 takes, labelled with its KafkaConnect', () => {
    expectValid(connector);
    expect(connector.metadata.labels?.['strimzi.io/cluster']).toBe('esc-0123456789ab-connect');
    expect(connector.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'KafkaConnect',
      uid: 'connect-uid',
    });
    expect(connector.spec).toMatchObject({
      class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
      tasksMax: 1,
      state: 'running',
    });
  });

  it('never holds a secret value: it refers to the Secret through the config provider', () => {
    expect(JSON.stringify(connector)).not.toContain(PASSWORD);
    expect((connector.spec as { config: Record<string, string> }).config).toEqual({
      topics: 'orders',
      'connection.url': 'jdbc:postgresql://db.example:5432/shop',
      'connection.user': 'shop',
      'connection.password':
        '${secrets:org-acme/esc-0123456789ab-connect-connector-secrets:orders-sink_connection.password}',
    });
    const secret = renderConnectorSecret(cluster, {
      'orders-sink_connection.password': PASSWORD,
    }) as KubeObject & {
      data: Record<string, string>;
    };
    expect(Buffer.from(secret.data['orders-sink_connection.password']!, 'base64').toString()).toBe(PASSWORD);
  });

  it('leaves to Strimzi the keys it sets from the resource', () => {
    const spec = renderKafkaConnector(cluster, {
      ...sink,
      config: { ...sink.config, name: 'orders-sink', 'connector.class': sink.class, 'tasks.max': '1' },
    }).spec as { config: Record<string, string> };
    expect(Object.keys(spec.config)).not.toEqual(expect.arrayContaining(['name']));
    expect(spec.config).not.toHaveProperty('connector.class');
    expect(spec.config).not.toHaveProperty('tasks.max');
  });

  it.each(['running', 'paused', 'stopped'] as const)('carries the target state %s as spec.state', (state) => {
    const rendered = renderKafkaConnector(cluster, { ...sink, state });
    expectValid(rendered);
    expect((rendered.spec as { state: string }).state).toBe(state);
  });

  it.each(['Orders', 'orders_sink', '-orders'])('refuses %j, which cannot name a KafkaConnector', (name) => {
    expect(() => kafkaConnectorName(name)).toThrow(/cannot name a connector run by Strimzi/);
  });
});

describe('restarts', () => {
  it.each([
    [{ includeTasks: false, onlyFailed: false }, 'true'],
    [{ includeTasks: true, onlyFailed: false }, 'includeTasks'],
    [{ includeTasks: false, onlyFailed: true }, 'onlyFailed'],
    [{ includeTasks: true, onlyFailed: true }, 'includeTasks,onlyFailed'],
  ])('%j is strimzi.io/restart=%s', (restart, value) => {
    expect(restartAnnotation(restart)).toBe(value);
  });
});

describe('reading the status Strimzi writes back', () => {
  it('answers Connect’s own status body', () => {
    const observed = readKafkaConnector(
      withStatus({
        observedGeneration: 1,
        conditions: [{ type: 'Ready', status: 'True' }],
        connectorStatus: {
          name: 'orders-sink',
          connector: { state: 'RUNNING', worker_id: '10.0.0.7:8083' },
          tasks: [
            {
              id: 1,
              state: 'FAILED',
              worker_id: '10.0.0.7:8083',
              trace: 'org.apache.kafka.connect.errors.ConnectException: boom',
            },
            { id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' },
          ],
          type: 'sink',
        },
        topics: ['orders'],
      }),
    );
    expect(observed).toEqual({
      connector: { state: 'RUNNING', worker_id: '10.0.0.7:8083' },
      tasks: [
        { id: 0, state: 'RUNNING', worker_id: '10.0.0.7:8083' },
        {
          id: 1,
          state: 'FAILED',
          worker_id: '10.0.0.7:8083',
          trace: 'org.apache.kafka.connect.errors.ConnectException: boom',
        },
      ],
      topics: ['orders'],
    });
  });

  it.each(['PAUSED', 'STOPPED', 'RESTARTING', 'UNASSIGNED'])('keeps the state %s', (state) => {
    const observed = readKafkaConnector(
      withStatus({
        observedGeneration: 1,
        connectorStatus: { connector: { state, worker_id: 'w' }, tasks: [] },
      }),
    );
    expect(observed.connector.state).toBe(state);
  });

  it('is UNASSIGNED before Strimzi reports anything', () => {
    expect(readKafkaConnector(withStatus({}))).toEqual({
      connector: { state: 'UNASSIGNED', worker_id: '' },
      tasks: [],
      topics: [],
    });
  });

  it('is FAILED with Strimzi’s reason when it could not create the connector', () => {
    const observed = readKafkaConnector(
      withStatus({
        observedGeneration: 1,
        conditions: [
          {
            type: 'NotReady',
            status: 'True',
            reason: 'ConnectRestException',
            message: 'Connector class not found',
          },
        ],
      }),
    );
    expect(observed.connector).toEqual({
      state: 'FAILED',
      worker_id: '',
      trace: 'ConnectRestException: Connector class not found',
    });
  });

  it('does not blame a new generation for the last one’s refusal', () => {
    const observed = readKafkaConnector(
      withStatus(
        {
          observedGeneration: 1,
          conditions: [{ type: 'NotReady', status: 'True', reason: 'Old', message: 'old' }],
        },
        2,
      ),
    );
    expect(observed.connector.state).toBe('UNASSIGNED');
  });
});
