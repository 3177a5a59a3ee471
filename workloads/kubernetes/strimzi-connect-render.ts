/**
 * A streaming cluster's connectors as Strimzi objects (`kafka.strimzi.io/v1`), as pure functions:
 * one `KafkaConnect` per cluster that has connectors, managing its connectors through
 * `KafkaConnector` resources (`strimzi.io/use-connector-resources`), reaching the brokers on the
 * TLS listener as a SCRAM-SHA-512 user of its own; and what Strimzi writes back, read as the
 * Kafka Connect REST API answers it. Connector secrets live in one Secret per KafkaConnect that the
 * workers read through Strimzi's Kubernetes config provider; a connector refers to them by key.
 */
import type { Condition, KubeObject, OwnerReference } from '../../control-plane/types.js';
import { ownerReference } from '../../control-plane/owner-references.js';
import {
  WorkloadError,
  type ConnectorObservation,
  type ConnectorRestart,
  type ConnectorRunState,
  type ConnectorSpec,
  type ConnectTaskObservation,
  type ConnectUserSpec,
  type StreamingAcl,
  type StreamingClusterWorkload,
} from '../runtime.js';
import { KAFKA_CONNECT, KAFKA_CONNECTOR, ROLE, ROLE_BINDING, SECRET } from './resource-types.js';
import {
  apiVersionOf,
  caSecretName,
  conditionOf,
  kafkaName,
  metadataOf,
  PASSWORD_KEY,
  passwordSecretName,
  replicationOf,
  STRIMZI_CLUSTER_LABEL,
  TLS_LISTENER,
} from './strimzi-render.js';

/** Makes Strimzi create connectors from KafkaConnector resources instead of leaving its REST API open. */
export const USE_CONNECTOR_RESOURCES_ANNOTATION = 'strimzi.io/use-connector-resources';
/** `true`, `includeTasks`, `onlyFailed` or both: Strimzi restarts the connector and removes it. */
export const RESTART_ANNOTATION = 'strimzi.io/restart';
/** A task's number: Strimzi restarts that task and removes it. */
export const RESTART_TASK_ANNOTATION = 'strimzi.io/restart-task';
/** The config provider prefix connectors' secret values are read through. */
export const SECRETS_PROVIDER = 'secrets';
/** Strimzi's Kubernetes config provider, in every Strimzi Connect image. */
const SECRET_PROVIDER_CLASS = 'io.strimzi.kafka.KubernetesSecretConfigProvider';

/**
 * The worker group and its storage topics. `__` keeps them out of the topics the platform lists
 * as a tenant's; each streaming cluster is its own Kafka, so the names need not carry its id.
 */
export const CONNECT_GROUP = '__cloudplane-connect';
export const CONNECT_TOPICS = {
  config: '__cloudplane-connect-configs',
  offset: '__cloudplane-connect-offsets',
  status: '__cloudplane-connect-status',
} as const;

/** The keys Strimzi sets from `spec.class` and `spec.tasksMax`, or from the resource's name. */
const RESERVED_KEYS = new Set(['name', 'connector.class', 'tasks.max', 'connector.plugin.version']);

export interface StrimziConnectSettings {
  /** A Connect image with the connector plugins the platform offers; absent: Strimzi's (no plugins). */
  image?: string;
}

/** `esc-0123456789ab-connect`; Strimzi names its pods and ServiceAccount `<this>-connect`. */
export const connectName = (cluster: StreamingClusterWorkload): string => `${kafkaName(cluster)}-connect`;
const serviceAccountOf = (cluster: StreamingClusterWorkload) => `${connectName(cluster)}-connect`;
/** The one Secret holding the secret values of every connector of the cluster. */
export const connectorSecretName = (cluster: StreamingClusterWorkload): string =>
  `${connectName(cluster)}-connector-secrets`;
const secretReaderName = (cluster: StreamingClusterWorkload) => `${connectName(cluster)}-secret-reader`;

/**
 * A KafkaConnector's name is its connector's name in Connect (Strimzi takes the one from the
 * other), so it must be an object name: a connector named otherwise cannot run on Strimzi.
 */
export function kafkaConnectorName(name: string): string {
  if (name.length > 253 || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) {
    throw new WorkloadError(
      'InvalidName',
      `${JSON.stringify(name)} cannot name a connector run by Strimzi: its name is the KafkaConnector's, so lower-case letters, digits, '-' and '.', at most 253 characters`,
    );
  }
  return name;
}

/** A connector's secret key in the shared Secret: `_` never occurs in a KafkaConnector's name. */
export const secretKeyOf = (connector: string, key: string): string => `${connector}_${key}`;

/** Whether `key` of the shared Secret is one of `connector`'s. */
export const isSecretKeyOf = (connector: string, key: string): boolean => key.startsWith(`${connector}_`);

/** The ACLs of the workers' own group and storage topics; the connectors' come with the user. */
export function connectWorkerAcls(): StreamingAcl[] {
  return [
    ...Object.values(CONNECT_TOPICS).map((name): StreamingAcl => ({
      resourceType: 'topic',
      patternType: 'literal',
      name,
      operations: ['create', 'describe', 'read', 'write'],
      permission: 'allow',
    })),
    {
      resourceType: 'group',
      patternType: 'literal',
      name: CONNECT_GROUP,
      operations: ['read', 'describe'],
      permission: 'allow',
    },
  ];
}

/** Makes an object go with its owner (the garbage collector removes it). */
export function ownedBy(owner: KubeObject): OwnerReference[] {
  return [ownerReference(owner, { blockOwnerDeletion: false })];
}

/**
 * The Connect workers: one replica on the TLS listener as `user`, trusting the cluster CA,
 * connectors from KafkaConnector resources, secret values through the Kubernetes config provider.
 * Owned by the Kafka, so they go with it.
 */
export function renderKafkaConnect(
  cluster: StreamingClusterWorkload,
  user: Pick<ConnectUserSpec, 'name'>,
  settings: StrimziConnectSettings,
  kafka?: KubeObject,
): KubeObject {
  const replication = replicationOf(cluster);
  const metadata = metadataOf(cluster, connectName(cluster), false);
  return {
    apiVersion: apiVersionOf(KAFKA_CONNECT),
    kind: KAFKA_CONNECT.kind,
    metadata: {
      ...metadata,
      annotations: { [USE_CONNECTOR_RESOURCES_ANNOTATION]: 'true' },
      ...(kafka?.metadata.uid ? { ownerReferences: ownedBy(kafka) } : {}),
    },
    spec: {
      replicas: 1,
      ...(settings.image ? { image: settings.image } : {}),
      bootstrapServers: `${kafkaName(cluster)}-kafka-bootstrap.${cluster.organization}.svc:${TLS_LISTENER.port}`,
      groupId: CONNECT_GROUP,
      configStorageTopic: CONNECT_TOPICS.config,
      offsetStorageTopic: CONNECT_TOPICS.offset,
      statusStorageTopic: CONNECT_TOPICS.status,
      tls: { trustedCertificates: [{ secretName: caSecretName(cluster), certificate: 'ca.crt' }] },
      authentication: {
        type: 'scram-sha-512',
        username: user.name,
        passwordSecret: { secretName: passwordSecretName(cluster, user.name), password: PASSWORD_KEY },
      },
      config: {
        'config.storage.replication.factor': replication,
        'offset.storage.replication.factor': replication,
        'status.storage.replication.factor': replication,
        'config.providers': SECRETS_PROVIDER,
        [`config.providers.${SECRETS_PROVIDER}.class`]: SECRET_PROVIDER_CLASS,
      },
    },
  };
}

/** The connectors' secret values, each under `<connector>_<key>`. */
export function renderConnectorSecret(
  cluster: StreamingClusterWorkload,
  values: Record<string, string>,
  owner?: KubeObject,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: SECRET.kind,
    metadata: {
      ...metadataOf(cluster, connectorSecretName(cluster)),
      ...(owner ? { ownerReferences: ownedBy(owner) } : {}),
    },
    type: 'Opaque',
    data: Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]),
    ),
  } as KubeObject;
}

/** Lets the workers' ServiceAccount read that one Secret, as the config provider needs. */
export function renderSecretReader(cluster: StreamingClusterWorkload, owner?: KubeObject): KubeObject[] {
  const metadata = {
    ...metadataOf(cluster, secretReaderName(cluster)),
    ...(owner ? { ownerReferences: ownedBy(owner) } : {}),
  };
  return [
    {
      apiVersion: apiVersionOf(ROLE),
      kind: ROLE.kind,
      metadata,
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [connectorSecretName(cluster)],
          verbs: ['get'],
        },
      ],
    } as KubeObject,
    {
      apiVersion: apiVersionOf(ROLE_BINDING),
      kind: ROLE_BINDING.kind,
      metadata,
      subjects: [
        { kind: 'ServiceAccount', name: serviceAccountOf(cluster), namespace: cluster.organization },
      ],
      roleRef: { apiGroup: ROLE.group, kind: ROLE.kind, name: secretReaderName(cluster) },
    } as KubeObject,
  ];
}

/**
 * A connector: its class, task count and state; its configuration with each secret value replaced
 * by a reference the workers resolve (`${secrets:<namespace>/<secret>:<key>}`).
 */
export function renderKafkaConnector(
  cluster: StreamingClusterWorkload,
  connector: ConnectorSpec,
  owner?: KubeObject,
): KubeObject {
  const name = kafkaConnectorName(connector.name);
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(connector.config)) {
    if (!RESERVED_KEYS.has(key)) config[key] = value;
  }
  for (const key of Object.keys(connector.secrets)) {
    if (RESERVED_KEYS.has(key)) continue;
    config[key] =
      `\${${SECRETS_PROVIDER}:${cluster.organization}/${connectorSecretName(cluster)}:${secretKeyOf(name, key)}}`;
  }
  const metadata = metadataOf(cluster, name);
  return {
    apiVersion: apiVersionOf(KAFKA_CONNECTOR),
    kind: KAFKA_CONNECTOR.kind,
    metadata: {
      ...metadata,
      labels: { ...metadata.labels, [STRIMZI_CLUSTER_LABEL]: connectName(cluster) },
      ...(owner ? { ownerReferences: ownedBy(owner) } : {}),
    },
    spec: { class: connector.class, tasksMax: connector.tasksMax, config, state: connector.state },
  };
}

/** The annotation value asking Strimzi for a restart with these arguments. */
export function restartAnnotation({ includeTasks, onlyFailed }: ConnectorRestart): string {
  const args = [...(includeTasks ? ['includeTasks'] : []), ...(onlyFailed ? ['onlyFailed'] : [])];
  return args.length > 0 ? args.join(',') : 'true';
}

/** What Strimzi writes into a KafkaConnector's status (the fields read here). */
export interface KafkaConnectorStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** The body of Connect's `GET /connectors/<name>/status`, as Strimzi copies it. */
  connectorStatus?: {
    connector?: { state?: string; worker_id?: string; trace?: string };
    tasks?: { id?: number; state?: string; worker_id?: string; trace?: string }[];
  };
  topics?: string[];
}

const RUN_STATES: readonly ConnectorRunState[] = [
  'UNASSIGNED',
  'RUNNING',
  'PAUSED',
  'STOPPED',
  'FAILED',
  'RESTARTING',
];
const runStateOf = (state: string | undefined): ConnectorRunState =>
  RUN_STATES.find((known) => known === state?.toUpperCase()) ?? 'UNASSIGNED';

/**
 * The status Connect reports, from the copy Strimzi keeps. Before Strimzi has created the
 * connector it is UNASSIGNED; when Strimzi could not (the workers refused it, the KafkaConnect is
 * not ready) it is FAILED with Strimzi's reason as the trace, for the current generation only.
 */
export function readKafkaConnector(connector: KubeObject): ConnectorObservation {
  const status = (connector.status ?? {}) as KafkaConnectorStatus;
  const reported = status.connectorStatus;
  const topics = [...(status.topics ?? [])].sort();
  const current = (status.observedGeneration ?? 0) >= (connector.metadata.generation ?? 0);
  const ready = conditionOf(status, 'Ready');
  const notReady = conditionOf(status, 'NotReady');
  const refusal = ready?.status === 'False' ? ready : notReady?.status === 'True' ? notReady : undefined;
  if (current && refusal && !reported?.connector) {
    return {
      connector: {
        state: 'FAILED',
        worker_id: '',
        trace: `${refusal.reason ? `${refusal.reason}: ` : ''}${refusal.message ?? 'refused by Strimzi'}`,
      },
      tasks: [],
      topics,
    };
  }
  if (!reported?.connector) return { connector: { state: 'UNASSIGNED', worker_id: '' }, tasks: [], topics };
  const tasks = (reported.tasks ?? [])
    .map((task, index): ConnectTaskObservation => ({
      id: task.id ?? index,
      state: runStateOf(task.state),
      worker_id: task.worker_id ?? '',
      ...(task.trace ? { trace: task.trace } : {}),
    }))
    .sort((a, b) => a.id - b.id);
  return {
    connector: {
      state: runStateOf(reported.connector.state),
      worker_id: reported.connector.worker_id ?? '',
      ...(reported.connector.trace ? { trace: reported.connector.trace } : {}),
    },
    tasks,
    topics,
  };
}
