import type { Condition, KubeObject } from '../control-plane/types.js';
import {
  GROUP,
  READY_REASON_COLUMN,
  VERSION,
  type KindDescriptor,
} from '../control-plane/kind-descriptor.js';
import type { RealizationName } from './data-services.js';

export type StreamingTierName = 'starter' | 'pro' | 'enterprise';

/** An event-streaming cluster: Kafka-protocol brokers reached over SASL_SSL with SCRAM-SHA-512. */
export interface StreamingClusterSpec {
  /** The display name, unique in the organization. */
  name: string;
  /** Sets the brokers, storage, partitions and retention the cluster may have (the spec's tier table). */
  tier: StreamingTierName;
  /** One of the platform's regions. */
  region: string;
}

export type StreamingClusterPhase = 'provisioning' | 'running' | 'degraded' | 'deleting' | 'error';

/** What the cluster's tier allows; null where the tier's value is custom. */
export interface StreamingClusterLimits {
  /** @asType integer */
  brokers: number;
  /** Partitions across every topic of the cluster. */
  partitions: number | null;
  storageBytes: number | null;
  /** The longest retention a topic may have, in ms; null: any, including forever. */
  retentionMaxMs: number | null;
}

export interface StreamingClusterUsage {
  storageBytes: number;
  /** @asType integer */
  partitions: number;
}

/** A consumer group of the cluster as its last refresh saw it. */
export interface ConsumerGroupSummary {
  groupId: string;
  /** Kafka's group state: `Empty`, `Stable`, `PreparingRebalance`, … */
  state: string;
  /** @asType integer */
  members: number;
  /** @asType integer */
  totalLag: number;
  /** Burrow's evaluation: `OK`, `WARN`, `ERR`, `STOP`, `STALL`. */
  status: string;
}

export interface StreamingClusterStatus {
  phase?: StreamingClusterPhase;
  realization?: RealizationName;
  /** Why provisioning, degraded or in error. */
  message?: string;
  /** @asType integer */
  brokers?: number;
  /** `host:port` of each broker. */
  bootstrapServers?: string[];
  /** PEM of the authority the brokers' certificates chain to (public). */
  caCertificate?: string;
  limits?: StreamingClusterLimits;
  usage?: StreamingClusterUsage;
  /** Its consumer groups and their lag, at most 100, those lagging most first. */
  consumerGroups?: ConsumerGroupSummary[];
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type StreamingCluster = KubeObject<StreamingClusterSpec, StreamingClusterStatus>;

export const STREAMING_CLUSTER: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'StreamingCluster',
  plural: 'streamingclusters',
  singular: 'streamingcluster',
  namespaced: true,
  shortNames: ['esc'],
  categories: ['cloudplane', 'all'],
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Tier', type: 'string', jsonPath: '.spec.tier' },
    { name: 'Region', type: 'string', jsonPath: '.spec.region' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Brokers', type: 'integer', jsonPath: '.status.brokers' },
    { name: 'Bootstrap', type: 'string', jsonPath: '.status.bootstrapServers[0]', priority: 1 },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/streaming.ts',
};

export type StreamingCleanupPolicy = 'delete' | 'compact';

/**
 * A topic of a cluster, owned by it. The object's name derives from the cluster and the topic
 * name (which may hold `_`, `.` and capitals); topics made over the Kafka protocol appear as
 * objects labelled `cloudplane.dev/created-by: kafka`.
 */
export interface StreamingTopicSpec {
  /** The StreamingCluster's object name. */
  cluster: string;
  /**
   * The Kafka topic name: `[a-zA-Z0-9._-]`, at most 249 characters.
   * @pattern ^[a-zA-Z0-9._-]+$
   * @maxLength 249
   */
  name: string;
  /**
   * Only grows.
   * @asType integer
   * @minimum 1
   */
  partitions: number;
  /**
   * At most the cluster's brokers.
   * @asType integer
   * @minimum 1
   */
  replicas: number;
  /** How long records are kept: `7d`, `12h`, `30m`, or `-1` (forever, enterprise only). */
  retention: string;
  cleanupPolicy: StreamingCleanupPolicy;
  /**
   * Kafka's `flush.messages`: the messages a partition may hold before they are fsynced. 1 (the
   * default): every append is durable before it is answered; more, or -1 (Kafka's default,
   * Long.MAX_VALUE): an append is answered once written to the operating system.
   * @asType integer
   * @minimum -1
   */
  flushMessages?: number;
  /**
   * Kafka's `flush.ms`: how long the oldest message not yet fsynced may wait; -1 (the default):
   * Long.MAX_VALUE, no limit.
   * @asType integer
   * @minimum -1
   */
  flushMs?: number;
}

export type StreamingTopicPhase = 'pending' | 'ready' | 'deleting' | 'error';

export interface StreamingTopicStatus {
  phase?: StreamingTopicPhase;
  message?: string;
  /**
   * The partitions the broker has.
   * @asType integer
   */
  partitions?: number;
  /** When the broker made the topic. */
  createdAt?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type StreamingTopic = KubeObject<StreamingTopicSpec, StreamingTopicStatus>;

export const STREAMING_TOPIC: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'StreamingTopic',
  plural: 'streamingtopics',
  singular: 'streamingtopic',
  namespaced: true,
  shortNames: ['est'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.cluster' },
    { name: 'Topic', type: 'string', jsonPath: '.spec.name' },
    { name: 'Partitions', type: 'integer', jsonPath: '.spec.partitions' },
    { name: 'Retention', type: 'string', jsonPath: '.spec.retention' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/streaming.ts',
};

export type StreamingAclResourceType = 'topic' | 'group' | 'transactional_id' | 'cluster';
export type StreamingAclPatternType = 'literal' | 'prefixed';
export type StreamingAclOperation =
  'read' | 'write' | 'describe' | 'create' | 'delete' | 'alter' | 'idempotent_write';
export type StreamingAclPermission = 'allow' | 'deny';

/** The one cluster resource's name, as Kafka names it. */
export const STREAMING_CLUSTER_RESOURCE = 'kafka-cluster';

/**
 * What an ACL on the cluster may grant or deny, as Kafka checks them there: ALTER to create and
 * delete ACLs, DESCRIBE to list them, IDEMPOTENT_WRITE to be an idempotent producer.
 */
export const STREAMING_CLUSTER_OPERATIONS: readonly StreamingAclOperation[] = [
  'alter',
  'describe',
  'idempotent_write',
];

/** Why an ACL's operations do not fit its resource type, if they do not. */
export function aclOperationsProblem(
  resourceType: StreamingAclResourceType,
  operations: readonly StreamingAclOperation[],
): string | undefined {
  const fits =
    resourceType === 'cluster'
      ? operations.every((operation) => STREAMING_CLUSTER_OPERATIONS.includes(operation))
      : !operations.includes('idempotent_write');
  return fits
    ? undefined
    : "the cluster resource takes alter, describe and idempotent_write only, and idempotent_write is the cluster's alone";
}

export interface StreamingUserAcl {
  resourceType: StreamingAclResourceType;
  patternType: StreamingAclPatternType;
  /** A topic, group or transactional id, or its prefix; `kafka-cluster` for the cluster. */
  name: string;
  operations: StreamingAclOperation[];
  permission: StreamingAclPermission;
}

/**
 * A SCRAM-SHA-512 user of a cluster, owned by it. Its password is never in the object: the data
 * plane keeps the SCRAM credential and the password sealed under the platform key; a user applied
 * with kubectl gets a generated one.
 */
export interface StreamingUserSpec {
  /** The StreamingCluster's object name. */
  cluster: string;
  /**
   * The SASL user name: `[a-zA-Z0-9._-]`, at most 64 characters.
   * @pattern ^[a-zA-Z0-9._-]+$
   * @maxLength 64
   */
  name: string;
  /** A group id, or a prefix ending in `*`, the user may consume as. */
  consumerGroup?: string;
  acls: StreamingUserAcl[];
}

export type StreamingUserPhase = 'pending' | 'ready' | 'deleting' | 'error';

export interface StreamingUserStatus {
  phase?: StreamingUserPhase;
  message?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type StreamingUser = KubeObject<StreamingUserSpec, StreamingUserStatus>;

export const STREAMING_USER: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'StreamingUser',
  plural: 'streamingusers',
  singular: 'streaminguser',
  namespaced: true,
  shortNames: ['esu'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.cluster' },
    { name: 'User', type: 'string', jsonPath: '.spec.name' },
    { name: 'Consumer Group', type: 'string', jsonPath: '.spec.consumerGroup' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/streaming.ts',
};

export const STREAMING_KINDS = [STREAMING_CLUSTER, STREAMING_TOPIC, STREAMING_USER];
