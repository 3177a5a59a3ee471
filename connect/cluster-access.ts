/**
 * How the worker reaches a cluster's brokers: as a platform-internal user per connector, made
 * through the runtime's `ensureUser` with a random password and ACLs on exactly the connector's
 * topics and its group `connect-<name>`, so a connector reads what it was configured to and no
 * more, and the brokers check it like any client. The password lives only in this process: a
 * worker that starts again sets a new one.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { isStoreError, type ObjectStore } from '../control-plane/types.js';
import { objectNameOf } from '../crds/ids.js';
import { STREAMING_CLUSTER, type StreamingCluster } from '../crds/streaming.js';
import { scramCredential } from '../security/scram.js';
import type { StreamingAcl, StreamingClusterWorkload, StreamingRuntime } from '../workloads/runtime.js';
import { listOf } from './connectors/plugin.js';
import { pluginOf } from './connector-plugins.js';
import { errorHandlingSettingsOf } from './error-handling.js';
import type { StoredConnector } from './connector-store.js';

/** What the worker needs of the streaming family, given by the composition root. */
export interface StreamingFamily {
  clusterWorkload(cluster: StreamingCluster): StreamingClusterWorkload;
}

const SOURCE_TOPIC_RETENTION_MS = 7 * 24 * 3_600_000;

export type ClusterLookup =
  | { kind: 'gone' }
  | { kind: 'not-ready'; reason: string }
  | { kind: 'ready'; workload: StreamingClusterWorkload; bootstrapServers: string[]; caCertificate: string };

/** The consumer group of a sink connector, as Kafka Connect names it. */
export function connectorGroupOf(name: string): string {
  return `connect-${name}`;
}

/** The connector's broker user: a name no API user is likely to hold, fixed per cluster and connector. */
export function connectorUserOf(connector: { cluster: string; name: string }): string {
  const digest = createHash('sha256').update(`${connector.cluster}/${connector.name}`).digest('hex');
  return `cloudplane-connect.${digest.slice(0, 16)}`;
}

export class ClusterAccess {
  constructor(
    private readonly store: ObjectStore,
    private readonly streaming: StreamingRuntime,
    private readonly family: StreamingFamily,
  ) {}

  /** The StreamingCluster object of `esc_…`; undefined once it is gone or going. */
  async clusterObject(namespace: string, restId: string): Promise<StreamingCluster | undefined> {
    let cluster: StreamingCluster;
    try {
      cluster = await this.store.get<StreamingCluster>(STREAMING_CLUSTER, namespace, objectNameOf(restId));
    } catch (error) {
      if (isStoreError(error, 'NotFound')) return undefined;
      throw error;
    }
    return !cluster.spec || cluster.metadata.deletionTimestamp ? undefined : cluster;
  }

  async lookup(namespace: string, restId: string): Promise<ClusterLookup> {
    const cluster = await this.clusterObject(namespace, restId);
    if (!cluster) return { kind: 'gone' };
    const { bootstrapServers, caCertificate } = cluster.status ?? {};
    if (!bootstrapServers?.length || !caCertificate) {
      return { kind: 'not-ready', reason: `streaming cluster ${restId} has no brokers yet` };
    }
    return { kind: 'ready', workload: this.family.clusterWorkload(cluster), bootstrapServers, caCertificate };
  }

  /**
   * A Kafka client as the connector's own user, made (or given a new password) now with ACLs on
   * its topics and group.
   */
  async clientFor(
    connector: StoredConnector,
    cluster: Extract<ClusterLookup, { kind: 'ready' }>,
  ): Promise<Kafka> {
    const password = randomBytes(24).toString('base64url');
    const username = connectorUserOf(connector);
    const group = connectorGroupOf(connector.name);
    await this.streaming.ensureUser(cluster.workload, {
      name: username,
      credential: scramCredential(password),
      password,
      consumerGroup: group,
      acls: connectorAcls(connector),
    });
    // kafkajs is CommonJS: its named exports come through the default one. Loaded when a connector first runs.
    const { default: kafkajs } = await import('kafkajs');
    const { Kafka, logLevel } = kafkajs;
    return new Kafka({
      clientId: group,
      brokers: cluster.bootstrapServers,
      ssl: { ca: [cluster.caCertificate] },
      sasl: { mechanism: 'scram-sha-512', username, password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
  }

  /** Makes a topic a source writes to, when missing, with the cluster's defaults. */
  async ensureTopic(cluster: Extract<ClusterLookup, { kind: 'ready' }>, name: string): Promise<void> {
    await this.streaming.ensureTopic(cluster.workload, {
      name,
      partitions: 1,
      replicas: 1,
      retentionMs: SOURCE_TOPIC_RETENTION_MS,
      cleanupPolicy: 'delete',
    });
  }

  async removeUser(connector: StoredConnector, workload: StreamingClusterWorkload): Promise<void> {
    await this.streaming.removeUser(workload, connectorUserOf(connector));
  }
}

/**
 * What the connectors need of the brokers: a sink reads its topics and writes its dead-letter
 * topic, a source writes under its prefix; each its group.
 */
export function connectorAcls(connector: StoredConnector): StreamingAcl[] {
  const isSource = pluginOf(connector.config['connector.class'])?.type === 'source';
  const deadLetterTopic = isSource ? undefined : errorHandlingSettingsOf(connector.config).deadLetterTopic;
  return [
    ...listOf(connector.config.topics).map((topic): StreamingAcl => ({
      resourceType: 'topic',
      patternType: 'literal',
      name: topic,
      operations: ['read', 'describe'],
      permission: 'allow',
    })),
    ...(deadLetterTopic
      ? [
          {
            resourceType: 'topic',
            patternType: 'literal',
            name: deadLetterTopic,
            operations: ['write', 'describe', 'create'],
            permission: 'allow',
          } satisfies StreamingAcl,
        ]
      : []),
    ...(isSource && connector.config['topic.prefix']
      ? [
          {
            resourceType: 'topic',
            patternType: 'prefixed',
            name: `${connector.config['topic.prefix']}.`,
            operations: ['write', 'describe', 'create'],
            permission: 'allow',
          } satisfies StreamingAcl,
        ]
      : []),
    {
      resourceType: 'group',
      patternType: 'literal',
      name: connectorGroupOf(connector.name),
      operations: ['read', 'describe', 'delete'],
      permission: 'allow',
    },
  ];
}
