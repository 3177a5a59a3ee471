/**
 * An event-streaming cluster as Strimzi objects (`kafka.strimzi.io/v1`, Strimzi 0.49 and later),
 * as pure functions: workload in, objects out; and what Strimzi writes back, read the same way.
 * A `Kafka` runs in KRaft mode on one `KafkaNodePool` of combined controller and broker nodes;
 * clients reach it on one internal TLS listener with SCRAM-SHA-512; `KafkaTopic` and `KafkaUser`
 * are carried out by the topic and user operators of the Kafka's entity operator.
 */
import type { Condition, KubeObject } from '../../control-plane/types.js';
import {
  kafkaLongText,
  WorkloadError,
  type AclOperation,
  type StreamingAcl,
  type StreamingClusterWorkload,
  type StreamingTopicSpec,
  type StreamingUserSpec,
  type WorkloadState,
} from '../runtime.js';
import { kubeName } from './names.js';
import { MANAGED_BY_LABEL } from './render.js';
import { KAFKA, KAFKA_NODE_POOL, KAFKA_TOPIC, KAFKA_USER, SECRET } from './resource-types.js';
import { ORGANIZATION_LABEL, PASSWORD_VERSION_ANNOTATION, WORKLOAD_LABEL } from '../../crds/annotations.js';

/** Strimzi's label tying a node pool, a topic or a user to its Kafka. */
export const STRIMZI_CLUSTER_LABEL = 'strimzi.io/cluster';
export const TLS_LISTENER = { name: 'tls', port: 9093 } as const;
/** The key of the password in the Secret a KafkaUser reads and in the one Strimzi writes. */
export const PASSWORD_KEY = 'password';

export interface StrimziSettings {
  /** Absent: the newest version the installed Strimzi supports. */
  kafkaVersion?: string;
  /** The StorageClass of the brokers' volumes; absent: the cluster's default. */
  storageClass?: string;
  /** Each broker's volume when the tier's storage is custom (null). */
  customStorageGi: number;
}

export const DEFAULT_STRIMZI_SETTINGS: StrimziSettings = { customStorageGi: 1024 };

/** `esc_0123456789ab` → `esc-0123456789ab`: the Kafka's name, in the organization's namespace. */
export const kafkaName = (cluster: StreamingClusterWorkload): string => kubeName(cluster.id);
export const nodePoolName = (cluster: StreamingClusterWorkload): string => `${kafkaName(cluster)}-nodes`;
/** Strimzi keeps the cluster CA's public certificate here, under `ca.crt`. */
export const caSecretName = (cluster: StreamingClusterWorkload): string =>
  `${kafkaName(cluster)}-cluster-ca-cert`;
/** The platform's own user of a cluster: it reads topics, groups and offsets. */
export const adminUserName = (cluster: StreamingClusterWorkload): string =>
  `${kafkaName(cluster)}-cloudplane-admin`;
/**
 * The user operator names each user's Secret with this prefix: without it the Secret would be
 * named as the user, and could collide with any other Secret of the namespace.
 */
export const userSecretPrefix = (cluster: StreamingClusterWorkload): string => `${kafkaName(cluster)}-user-`;
/** The Secret the platform writes a user's password into, for the KafkaUser to read. */
export const passwordSecretName = (cluster: StreamingClusterWorkload, user: string): string =>
  `${kafkaName(cluster)}-password-${user}`;

/**
 * A KafkaUser's name is its Kafka user name, so it must be both: a DNS subdomain short enough
 * for its Secrets' names.
 */
export function kafkaUserName(cluster: StreamingClusterWorkload, name: string): string {
  const longest = 253 - passwordSecretName(cluster, '').length;
  if (name.length > longest || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) {
    throw new WorkloadError(
      'InvalidName',
      `${JSON.stringify(name)} cannot name a user of a cluster run by Strimzi: lower-case letters, digits, '-' and '.', at most ${longest} characters`,
    );
  }
  return name;
}

/** Kafka's rules for a topic name. */
export function checkTopicName(name: string): void {
  if (!/^[a-zA-Z0-9._-]{1,249}$/.test(name) || name === '.' || name === '..') {
    throw new WorkloadError(
      'InvalidTopicName',
      `${JSON.stringify(name)} is not a topic name: letters, digits, '.', '_' and '-', at most 249 characters, not '.' or '..'`,
    );
  }
}

/**
 * A KafkaTopic's name: Kafka topic names allow capitals, `_` and 249 characters, object names do
 * not, so the name is a readable prefix and a hash of the topic name (which is `spec.topicName`).
 */
export function kafkaTopicName(cluster: StreamingClusterWorkload, topic: string): string {
  const readable = topic
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${kafkaName(cluster)}-${readable ? `${readable}-` : ''}${fnv1a(topic)}`;
}

/** 32-bit FNV-1a, hex: short, stable, and enough to keep apart names that read the same. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** Three copies of each partition where there are three brokers or more, else one per broker. */
export const replicationOf = (cluster: StreamingClusterWorkload): number =>
  Math.min(3, cluster.limits.brokers);

/** Each broker holds its share of the tier's storage times the replication. */
export function brokerVolumeGi(cluster: StreamingClusterWorkload, settings: StrimziSettings): number {
  const { storageBytes, brokers } = cluster.limits;
  if (storageBytes === null) return settings.customStorageGi;
  return Math.max(1, Math.ceil((storageBytes * replicationOf(cluster)) / brokers / 1024 ** 3));
}

/** Names and labels of an object of the cluster; `strimziCluster`: labelled as one of its Kafka's. */
export function metadataOf(cluster: StreamingClusterWorkload, name: string, strimziCluster = true) {
  return {
    name,
    namespace: cluster.organization,
    labels: {
      [MANAGED_BY_LABEL]: 'cloudplane',
      [WORKLOAD_LABEL]: cluster.id,
      [ORGANIZATION_LABEL]: cluster.organization,
      ...(strimziCluster ? { [STRIMZI_CLUSTER_LABEL]: kafkaName(cluster) } : {}),
    },
  };
}

export const apiVersionOf = (type: { group: string; version: string }) => `${type.group}/${type.version}`;

/** The Kafka: KRaft on node pools, one TLS listener with SCRAM-SHA-512, ACLs, both entity operators. */
export function renderKafka(cluster: StreamingClusterWorkload, settings: StrimziSettings): KubeObject {
  const replication = replicationOf(cluster);
  return {
    apiVersion: apiVersionOf(KAFKA),
    kind: KAFKA.kind,
    metadata: metadataOf(cluster, kafkaName(cluster), false),
    spec: {
      kafka: {
        ...(settings.kafkaVersion ? { version: settings.kafkaVersion } : {}),
        listeners: [
          {
            ...TLS_LISTENER,
            type: 'internal',
            tls: true,
            authentication: { type: 'scram-sha-512' },
          },
        ],
        authorization: { type: 'simple' },
        config: {
          // Topics are made through the platform (or CreateTopics), never by a producer's typo.
          'auto.create.topics.enable': false,
          'default.replication.factor': replication,
          'min.insync.replicas': Math.max(1, replication - 1),
          'offsets.topic.replication.factor': replication,
          'transaction.state.log.replication.factor': replication,
          'transaction.state.log.min.isr': Math.max(1, replication - 1),
        },
      },
      entityOperator: {
        topicOperator: {},
        userOperator: { secretPrefix: userSecretPrefix(cluster) },
      },
    },
  };
}

/** The tier's nodes: each both a KRaft controller and a broker, with one persistent volume. */
export function renderNodePool(cluster: StreamingClusterWorkload, settings: StrimziSettings): KubeObject {
  return {
    apiVersion: apiVersionOf(KAFKA_NODE_POOL),
    kind: KAFKA_NODE_POOL.kind,
    metadata: metadataOf(cluster, nodePoolName(cluster)),
    spec: {
      replicas: cluster.limits.brokers,
      roles: ['controller', 'broker'],
      storage: {
        type: 'jbod',
        volumes: [
          {
            id: 0,
            type: 'persistent-claim',
            size: `${brokerVolumeGi(cluster, settings)}Gi`,
            ...(settings.storageClass ? { class: settings.storageClass } : {}),
            // The volume holds the KRaft metadata log too; it goes with the cluster.
            kraftMetadata: 'shared',
            deleteClaim: true,
          },
        ],
      },
    },
  };
}

export function renderKafkaTopic(cluster: StreamingClusterWorkload, topic: StreamingTopicSpec): KubeObject {
  checkTopicName(topic.name);
  return {
    apiVersion: apiVersionOf(KAFKA_TOPIC),
    kind: KAFKA_TOPIC.kind,
    metadata: metadataOf(cluster, kafkaTopicName(cluster, topic.name)),
    spec: {
      topicName: topic.name,
      partitions: topic.partitions,
      replicas: topic.replicas,
      config: {
        'retention.ms': topic.retentionMs,
        'cleanup.policy': topic.cleanupPolicy,
        ...(topic.flushMessages === undefined
          ? {}
          : { 'flush.messages': kafkaLongText(topic.flushMessages) }),
        ...(topic.flushMs === undefined ? {} : { 'flush.ms': kafkaLongText(topic.flushMs) }),
      },
    },
  };
}

const OPERATIONS: Record<AclOperation, string> = {
  read: 'Read',
  write: 'Write',
  describe: 'Describe',
  create: 'Create',
  delete: 'Delete',
  alter: 'Alter',
  idempotent_write: 'IdempotentWrite',
};

const RESOURCE_TYPES: Record<StreamingAcl['resourceType'], StrimziAcl['resource']['type']> = {
  topic: 'topic',
  group: 'group',
  transactional_id: 'transactionalId',
  cluster: 'cluster',
};

export interface StrimziAcl {
  type: 'allow' | 'deny';
  resource: { type: 'topic' | 'group' | 'cluster' | 'transactionalId'; name?: string; patternType?: string };
  operations: string[];
}

/** A consumer group id, or a prefix ending in `*`, as the group resource Kafka reads it. */
function groupResource(consumerGroup: string): StrimziAcl['resource'] {
  if (consumerGroup === '*') return { type: 'group', name: '*', patternType: 'literal' };
  return consumerGroup.endsWith('*')
    ? { type: 'group', name: consumerGroup.slice(0, -1), patternType: 'prefix' }
    : { type: 'group', name: consumerGroup, patternType: 'literal' };
}

/** The user's ACLs, and READ on its consumer group (READ implies DESCRIBE in Kafka). */
export function kafkaUserAcls(user: Pick<StreamingUserSpec, 'acls' | 'consumerGroup'>): StrimziAcl[] {
  const acls = user.acls.map((acl: StreamingAcl): StrimziAcl => ({
    type: acl.permission,
    resource:
      acl.resourceType === 'cluster'
        ? { type: 'cluster' }
        : {
            type: RESOURCE_TYPES[acl.resourceType],
            name: acl.name,
            patternType: acl.patternType === 'prefixed' ? 'prefix' : 'literal',
          },
    operations: acl.operations.map((operation) => OPERATIONS[operation]),
  }));
  if (user.consumerGroup) {
    acls.push({ type: 'allow', resource: groupResource(user.consumerGroup), operations: ['Read'] });
  }
  return acls;
}

/** Everything, for the platform's own user: it lists topics, groups and their offsets. */
export const ADMIN_ACLS: StrimziAcl[] = [
  { type: 'allow', resource: { type: 'cluster' }, operations: ['All'] },
  ...(['topic', 'group', 'transactionalId'] as const).map((type): StrimziAcl => ({
    type: 'allow',
    resource: { type, name: '*', patternType: 'literal' },
    operations: ['All'],
  })),
];

/**
 * A SCRAM-SHA-512 user whose password the user operator reads from the platform's Secret
 * (Strimzi derives the credential itself, with its own salt), with `simple` ACLs.
 * `passwordVersion` is that Secret's resourceVersion: a change makes the operator apply it now.
 */
export function renderKafkaUser(
  cluster: StreamingClusterWorkload,
  name: string,
  acls: StrimziAcl[],
  passwordVersion: string,
): KubeObject {
  const metadata = metadataOf(cluster, kafkaUserName(cluster, name));
  return {
    apiVersion: apiVersionOf(KAFKA_USER),
    kind: KAFKA_USER.kind,
    metadata: { ...metadata, annotations: { [PASSWORD_VERSION_ANNOTATION]: passwordVersion } },
    spec: {
      authentication: {
        type: 'scram-sha-512',
        password: {
          valueFrom: { secretKeyRef: { name: passwordSecretName(cluster, name), key: PASSWORD_KEY } },
        },
      },
      authorization: { type: 'simple', acls },
    },
  };
}

export function renderPasswordSecret(
  cluster: StreamingClusterWorkload,
  user: string,
  password: string,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: SECRET.kind,
    metadata: metadataOf(cluster, passwordSecretName(cluster, user)),
    type: 'Opaque',
    data: { [PASSWORD_KEY]: Buffer.from(password, 'utf8').toString('base64') },
  } as KubeObject;
}

/** What Strimzi writes into a Kafka's status (the fields read here). */
export interface KafkaStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  listeners?: { name?: string; bootstrapServers?: string; certificates?: string[] }[];
}

export interface KafkaReading {
  state: Exclude<WorkloadState, 'recorded'>;
  message?: string;
  bootstrapServers: string[];
  caCertificate: string;
}

export const conditionOf = (status: { conditions?: Condition[] } | undefined, type: string) =>
  status?.conditions?.find((condition) => condition.type === type);

/**
 * `ready` once Strimzi reports the Kafka Ready for its current generation, with the TLS listener's
 * bootstrap servers and the cluster CA (from its Secret, else the listener's certificates).
 */
export function readKafka(kafka: KubeObject | undefined, caPem: string | undefined): KafkaReading {
  const none = { bootstrapServers: [], caCertificate: '' };
  if (!kafka) return { ...none, state: 'degraded', message: 'its Strimzi Kafka is missing' };
  const status = (kafka.status ?? {}) as KafkaStatus;
  const listener = status.listeners?.find((each) => each.name === TLS_LISTENER.name);
  const bootstrapServers = (listener?.bootstrapServers ?? '').split(',').filter(Boolean);
  const caCertificate = caPem ?? listener?.certificates?.[0] ?? '';
  const ready = conditionOf(status, 'Ready');
  const current = (status.observedGeneration ?? 0) >= (kafka.metadata.generation ?? 0);
  if (ready?.status === 'True' && current && bootstrapServers.length > 0 && caCertificate) {
    return { state: 'ready', bootstrapServers, caCertificate };
  }
  const reported = ready?.message ?? conditionOf(status, 'NotReady')?.message;
  const updating = status.observedGeneration !== undefined && !current;
  return {
    bootstrapServers,
    caCertificate,
    state: 'provisioning',
    message: `Strimzi is ${updating ? 'updating' : 'starting'} the Kafka${reported ? `: ${reported}` : ''}`,
  };
}

/** The reason Strimzi refused the current generation of a topic or a user, if it did. */
export function strimziRefusal(object: KubeObject): string | undefined {
  const status = object.status as { observedGeneration?: number; conditions?: Condition[] } | undefined;
  if ((status?.observedGeneration ?? 0) < (object.metadata.generation ?? 0)) return undefined;
  const ready = conditionOf(status, 'Ready');
  if (ready?.status !== 'False') return undefined;
  return `${ready.reason ? `${ready.reason}: ` : ''}${ready.message ?? 'refused by Strimzi'}`;
}
