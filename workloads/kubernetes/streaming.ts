/**
 * Event-streaming clusters in a cluster: Strimzi runs them. A cluster is a `Kafka` with one
 * `KafkaNodePool`, a topic a `KafkaTopic`, a user a `KafkaUser` whose password the platform puts
 * in a Secret for Strimzi to read. What only Kafka knows (topics made over the protocol, partition
 * offsets, consumer groups and their lag) is asked with a Kafka admin client, as the platform's own
 * user of each cluster. Everything else is read back from the namespace: no replica keeps state,
 * but for the short window of offsets that lag statuses are judged on.
 */
import { randomBytes } from 'node:crypto';
import kafkajs, { type Admin } from 'kafkajs';
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import {
  kafkaLongOf,
  WorkloadError,
  type GroupLag,
  type GroupObservation,
  type LagStatus,
  type PartitionLag,
  type StreamingClusterObservation,
  type StreamingClusterWorkload,
  type StreamingRuntime,
  type StreamingTopicSpec,
  type StreamingUserSpec,
  type TopicObservation,
} from '../runtime.js';
import { sleep } from './jobs.js';
import { apply, read, refused, removeObject } from './objects.js';
import { secretValue, type SecretObject } from './readiness.js';
import { KAFKA, KAFKA_NODE_POOL, KAFKA_TOPIC, KAFKA_USER, SECRET } from './resource-types.js';
import type { KubernetesSettings } from './settings.js';
import {
  ADMIN_ACLS,
  adminUserName,
  caSecretName,
  checkTopicName,
  DEFAULT_STRIMZI_SETTINGS,
  kafkaName,
  kafkaTopicName,
  kafkaUserAcls,
  kafkaUserName,
  nodePoolName,
  PASSWORD_KEY,
  passwordSecretName,
  readKafka,
  renderKafka,
  renderKafkaTopic,
  renderKafkaUser,
  renderNodePool,
  renderPasswordSecret,
  STRIMZI_CLUSTER_LABEL,
  strimziRefusal,
  userSecretPrefix,
  type KafkaReading,
  type StrimziAcl,
  type StrimziSettings,
} from './strimzi-render.js';

// kafkajs is CommonJS: Node's ESM loader cannot see these as named exports.
const { AssignerProtocol, ConfigResourceTypes, Kafka, logLevel } = kafkajs;

/** Where and as whom the admin client connects. */
export interface AdminConnection {
  brokers: string[];
  caCertificate: string;
  username: string;
  password: string;
}

/** The part of kafkajs's admin client this runtime uses. */
export type StreamingAdmin = Pick<
  Admin,
  | 'listTopics'
  | 'fetchTopicMetadata'
  | 'fetchTopicOffsets'
  | 'describeConfigs'
  | 'deleteTopics'
  | 'listGroups'
  | 'describeGroups'
  | 'fetchOffsets'
  | 'disconnect'
>;

export type AdminConnector = (connection: AdminConnection) => Promise<StreamingAdmin>;

/** A kafkajs admin client over SASL_SSL with SCRAM-SHA-512, verifying the brokers against the cluster CA. */
export const kafkajsAdmin: AdminConnector = async (connection) => {
  const kafka = new Kafka({
    clientId: 'cloudplane-operator',
    brokers: connection.brokers,
    ssl: { ca: [connection.caCertificate] },
    sasl: { mechanism: 'scram-sha-512', username: connection.username, password: connection.password },
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    retry: { retries: 2 },
  });
  const admin = kafka.admin();
  await admin.connect();
  return admin;
};

export interface KubernetesStreamingOptions {
  strimzi?: Partial<StrimziSettings>;
  /** How the admin client is made; tests give their own. */
  connectAdmin?: AdminConnector;
  now?: () => number;
}

/** Kafka's own topics and Strimzi's: never shown as a tenant's. */
const isInternalTopic = (name: string) => name.startsWith('__');

export function kubernetesStreaming(
  store: ObjectStore,
  logger: Logger,
  settings: KubernetesSettings,
  options: KubernetesStreamingOptions = {},
): StreamingRuntime {
  const strimzi: StrimziSettings = { ...DEFAULT_STRIMZI_SETTINGS, ...options.strimzi };
  const connectAdmin = options.connectAdmin ?? kafkajsAdmin;
  const now = options.now ?? Date.now;
  const lagWindow = new LagWindow();

  const ofCluster = (cluster: StreamingClusterWorkload) => ({
    namespace: cluster.organization,
    labelSelector: `${STRIMZI_CLUSTER_LABEL}=${kafkaName(cluster)}`,
  });

  async function readCluster(cluster: StreamingClusterWorkload): Promise<KafkaReading> {
    const [kafka, ca] = await Promise.all([
      read(store, KAFKA, cluster.organization, kafkaName(cluster)),
      read<SecretObject>(store, SECRET, cluster.organization, caSecretName(cluster)),
    ]);
    return readKafka(kafka, secretValue(ca, 'ca.crt'));
  }

  async function kafkaTopics(cluster: StreamingClusterWorkload) {
    return (await store.list(KAFKA_TOPIC, ofCluster(cluster)).catch(refused('list KafkaTopics'))).items;
  }

  /** The password Secret a KafkaUser reads, written or replaced; its resourceVersion. */
  async function writePassword(cluster: StreamingClusterWorkload, user: string, password: string) {
    const secret = await apply(store, SECRET, renderPasswordSecret(cluster, user, password), (object) => ({
      data: (object as SecretObject).data,
    }));
    return secret.metadata.resourceVersion ?? '';
  }

  async function applyUser(
    cluster: StreamingClusterWorkload,
    name: string,
    acls: StrimziAcl[],
    version: string,
  ) {
    const existing = await read(store, KAFKA_USER, cluster.organization, name);
    const owner = existing?.metadata.labels?.[STRIMZI_CLUSTER_LABEL];
    if (existing && owner !== kafkaName(cluster)) {
      throw new WorkloadError(
        'NameConflict',
        `the user name ${name} is taken in this organization by another cluster (${owner ?? 'not one of the platform'}); Strimzi names users by their KafkaUser, one per namespace`,
      );
    }
    return apply(store, KAFKA_USER, renderKafkaUser(cluster, name, acls, version), (user) => ({
      metadata: { labels: user.metadata.labels, annotations: user.metadata.annotations },
      spec: user.spec,
    }));
  }

  /** The platform's own user of the cluster, with a password made once and kept in its Secret. */
  async function ensureAdminUser(cluster: StreamingClusterWorkload): Promise<void> {
    const name = adminUserName(cluster);
    const current = await read<SecretObject>(
      store,
      SECRET,
      cluster.organization,
      passwordSecretName(cluster, name),
    );
    const password = secretValue(current, PASSWORD_KEY) ?? randomBytes(24).toString('base64url');
    await applyUser(cluster, name, ADMIN_ACLS, await writePassword(cluster, name, password));
  }

  /** Runs `use` with an admin client of a ready cluster; undefined while it is not ready. */
  async function withAdmin<T>(
    cluster: StreamingClusterWorkload,
    use: (admin: StreamingAdmin) => Promise<T>,
  ): Promise<T | undefined> {
    const reading = await readCluster(cluster);
    if (reading.state !== 'ready') return undefined;
    const username = adminUserName(cluster);
    const user = await read(store, KAFKA_USER, cluster.organization, username);
    const secretName = (user?.status as { secret?: string } | undefined)?.secret;
    const written = await read<SecretObject>(
      store,
      SECRET,
      cluster.organization,
      secretName ?? `${userSecretPrefix(cluster)}${username}`,
    );
    const password = secretValue(written, PASSWORD_KEY);
    if (!password) return undefined;
    const connection = {
      brokers: reading.bootstrapServers,
      caCertificate: reading.caCertificate,
      username,
      password,
    };
    let admin: StreamingAdmin;
    try {
      admin = await connectAdmin(connection);
    } catch (error) {
      throw new WorkloadError(
        'ServerUnreachable',
        `cannot reach the Kafka of ${cluster.id}: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
    try {
      return await use(admin);
    } catch (error) {
      if (error instanceof WorkloadError) throw error;
      throw new WorkloadError(
        'ServerUnreachable',
        `the Kafka of ${cluster.id} refused: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async function observeCluster(cluster: StreamingClusterWorkload): Promise<StreamingClusterObservation> {
    const [reading, topics] = await Promise.all([readCluster(cluster), kafkaTopics(cluster)]);
    const partitions = topics.reduce(
      (sum, topic) => sum + ((topic.spec as { partitions?: number } | undefined)?.partitions ?? 0),
      0,
    );
    return {
      realization: 'real',
      state: reading.state,
      ...(reading.message ? { message: reading.message } : {}),
      bootstrapServers: reading.bootstrapServers,
      caCertificate: reading.caCertificate,
      // kafkajs cannot ask for log directory sizes (DescribeLogDirs): storage is not measured here.
      usage: { storageBytes: 0, partitions },
    };
  }

  /** What Kafka says of each topic; the KafkaTopics' specs while the cluster is not ready. */
  async function listTopics(cluster: StreamingClusterWorkload): Promise<TopicObservation[]> {
    const resources = await kafkaTopics(cluster);
    const createdAt = new Map(
      resources.map((resource) => [
        (resource.spec as { topicName?: string }).topicName ?? resource.metadata.name,
        resource.metadata.creationTimestamp,
      ]),
    );
    const described = await withAdmin(cluster, (admin) => describeTopics(admin, createdAt, now));
    return described ?? resources.map(topicOfResource);
  }

  async function ensureCluster(cluster: StreamingClusterWorkload): Promise<StreamingClusterObservation> {
    await apply(store, KAFKA, renderKafka(cluster, strimzi), (kafka) => ({ spec: kafka.spec }));
    await apply(store, KAFKA_NODE_POOL, renderNodePool(cluster, strimzi), (pool) => ({ spec: pool.spec }));
    await ensureAdminUser(cluster);
    const deadline = now() + settings.readyWaitMs;
    for (;;) {
      const observation = await observeCluster(cluster);
      if (observation.state === 'ready' || now() >= deadline) return observation;
      await sleep(settings.pollIntervalMs);
    }
  }

  return {
    ensureCluster,

    async removeCluster(cluster) {
      const { namespace } = ofCluster(cluster);
      // The topic operator goes with the Kafka, so topics lose its finalizer: their data goes too.
      for (const topic of await kafkaTopics(cluster)) {
        if (topic.metadata.finalizers?.length) {
          await store
            .patch(KAFKA_TOPIC, namespace, topic.metadata.name, { metadata: { finalizers: null } })
            .catch(refused(`release KafkaTopic ${topic.metadata.name}`));
        }
        await removeObject(store, KAFKA_TOPIC, namespace, topic.metadata.name);
      }
      const users = await store.list(KAFKA_USER, ofCluster(cluster)).catch(refused('list KafkaUsers'));
      for (const user of users.items) await removeObject(store, KAFKA_USER, namespace, user.metadata.name);
      await removeObject(store, KAFKA_NODE_POOL, namespace, nodePoolName(cluster));
      await removeObject(store, KAFKA, namespace, kafkaName(cluster));
      const secrets = await store.list(SECRET, ofCluster(cluster)).catch(refused('list Secrets'));
      for (const secret of secrets.items) await removeObject(store, SECRET, namespace, secret.metadata.name);
      lagWindow.forget(cluster.id);
      logger.info({ cluster: cluster.id }, 'streaming cluster objects removed');
    },

    async ensureTopic(cluster, topic) {
      checkTopicName(topic.name);
      checkTopicLimits(cluster, topic);
      const name = kafkaTopicName(cluster, topic.name);
      const others = (await kafkaTopics(cluster)).filter((each) => each.metadata.name !== name);
      const existing = await read(store, KAFKA_TOPIC, cluster.organization, name);
      const current = existing?.spec as { partitions?: number; replicas?: number } | undefined;
      const partitions = Math.max(topic.partitions, current?.partitions ?? 0);
      const used = others.reduce(
        (sum, each) => sum + ((each.spec as { partitions?: number }).partitions ?? 0),
        0,
      );
      if (cluster.limits.partitions !== null && used + partitions > cluster.limits.partitions) {
        throw new WorkloadError(
          'PartitionLimit',
          `${partitions} partitions would bring the cluster to ${used + partitions}, over its tier's ${cluster.limits.partitions}`,
        );
      }
      // Changing replicas needs Cruise Control: a topic keeps those it was made with.
      const wanted = { ...topic, partitions, replicas: current?.replicas ?? topic.replicas };
      const written = await apply(store, KAFKA_TOPIC, renderKafkaTopic(cluster, wanted), (object) => ({
        spec: object.spec,
      }));
      const refusal = strimziRefusal(written);
      if (refusal) throw new WorkloadError('TopicRefused', `Strimzi refused topic ${topic.name}: ${refusal}`);
      const details = await withAdmin(cluster, (admin) =>
        describeTopics(admin, new Map([[topic.name, written.metadata.creationTimestamp]]), now, [topic.name]),
      ).catch((error: unknown) => {
        logger.warn({ cluster: cluster.id, topic: topic.name, err: error }, 'topic partitions not read');
        return undefined;
      });
      return details?.[0] ?? topicOfResource(written);
    },

    async removeTopic(cluster, name) {
      const resource = kafkaTopicName(cluster, name);
      if (await read(store, KAFKA_TOPIC, cluster.organization, resource)) {
        await removeObject(store, KAFKA_TOPIC, cluster.organization, resource);
        return;
      }
      // Made over the Kafka protocol: no KafkaTopic stands for it.
      await withAdmin(cluster, async (admin) => {
        if ((await admin.listTopics()).includes(name)) await admin.deleteTopics({ topics: [name] });
      });
    },

    listTopics,

    async ensureUser(cluster, user: StreamingUserSpec) {
      const name = kafkaUserName(cluster, user.name);
      if (name === adminUserName(cluster)) {
        throw new WorkloadError('InvalidName', `${name} is the platform's own user of the cluster`);
      }
      if (user.password === undefined) {
        throw new WorkloadError(
          'PasswordRequired',
          'Strimzi derives SCRAM credentials from the password itself; a user cannot be made from a stored credential',
        );
      }
      const version = await writePassword(cluster, name, user.password);
      const written = await applyUser(cluster, name, kafkaUserAcls(user), version);
      const refusal = strimziRefusal(written);
      if (refusal) throw new WorkloadError('UserRefused', `Strimzi refused user ${name}: ${refusal}`);
    },

    async removeUser(cluster, name) {
      await removeObject(store, KAFKA_USER, cluster.organization, name);
      await removeObject(store, SECRET, cluster.organization, passwordSecretName(cluster, name));
    },

    async listGroups(cluster) {
      const groups = await withAdmin(cluster, async (admin) => {
        const { groups: overview } = await admin.listGroups();
        const ids = overview
          .filter((group) => group.protocolType === 'consumer')
          .map((group) => group.groupId);
        if (ids.length === 0) return [];
        const { groups: described } = await admin.describeGroups(ids);
        return Promise.all(described.map((group) => groupObservation(admin, group)));
      });
      return groups ?? [];
    },

    async groupLag(cluster, groupId) {
      return withAdmin(cluster, async (admin) => {
        const [{ groups }, committed] = await Promise.all([
          admin.describeGroups([groupId]),
          admin.fetchOffsets({ groupId }),
        ]);
        const state = groups[0]?.state ?? 'Dead';
        const partitions = committed.flatMap(({ topic, partitions: each }) =>
          each.map((partition) => ({
            topic,
            partition: partition.partition,
            committed: Number(partition.offset),
          })),
        );
        if (state === 'Dead' && partitions.every((partition) => partition.committed < 0)) return undefined;
        const ends = new Map<string, { high: number; low: number }>();
        for (const topic of new Set(partitions.map((partition) => partition.topic))) {
          for (const offsets of await admin.fetchTopicOffsets(topic)) {
            ends.set(`${topic}/${offsets.partition}`, {
              high: Number(offsets.high),
              low: Number(offsets.low),
            });
          }
        }
        const at = now();
        const lags = partitions.map(({ topic, partition, committed: offset }) => {
          const end = ends.get(`${topic}/${partition}`) ?? { high: 0, low: 0 };
          return lagWindow.judge(`${cluster.id}/${groupId}/${topic}/${partition}`, at, state, {
            topic,
            partition,
            committedOffset: offset,
            logEndOffset: end.high,
            lag: Math.max(0, end.high - Math.max(offset, end.low)),
          });
        });
        return groupLagOf(groupId, lags);
      });
    },

    async readRecords(cluster) {
      // Reading records takes a consumer client of the cluster, which this runtime does not hold:
      // the admin client it keeps cannot fetch.
      throw new WorkloadError(
        'RecordsUnreadable',
        `the records of ${cluster.id} are read with a Kafka consumer against its bootstrap servers; the platform does not browse a Strimzi cluster's records`,
      );
    },
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function checkTopicLimits(cluster: StreamingClusterWorkload, topic: StreamingTopicSpec): void {
  const { retentionMaxMs, brokers } = cluster.limits;
  if (retentionMaxMs !== null && (topic.retentionMs < 0 || topic.retentionMs > retentionMaxMs)) {
    throw new WorkloadError(
      'RetentionLimit',
      `a retention of ${topic.retentionMs < 0 ? 'forever' : `${topic.retentionMs} ms`} is over the tier's ${retentionMaxMs} ms`,
    );
  }
  if (topic.replicas > brokers) {
    throw new WorkloadError(
      'ReplicationLimit',
      `${topic.replicas} replicas need more than the cluster's ${brokers} brokers`,
    );
  }
}

/** The flush settings Kafka describes (Long.MAX_VALUE: Infinity), those it says. */
function flushSettingsOf(
  config: ReadonlyMap<string, string | null>,
): Pick<StreamingTopicSpec, 'flushMessages' | 'flushMs'> {
  const messages = kafkaLongOf(config.get('flush.messages') ?? '');
  const ms = kafkaLongOf(config.get('flush.ms') ?? '');
  return {
    ...(messages === undefined ? {} : { flushMessages: messages }),
    ...(ms === undefined ? {} : { flushMs: ms }),
  };
}

/** A topic as its KafkaTopic asks for it, before Kafka can say more. */
function topicOfResource(resource: KubeObject): TopicObservation {
  const spec = resource.spec as {
    topicName?: string;
    partitions: number;
    replicas: number;
    config?: { 'retention.ms'?: number; 'cleanup.policy'?: 'delete' | 'compact' };
  };
  return {
    name: spec.topicName ?? resource.metadata.name,
    partitions: spec.partitions,
    replicas: spec.replicas,
    retentionMs: Number(spec.config?.['retention.ms'] ?? -1),
    cleanupPolicy: spec.config?.['cleanup.policy'] ?? 'delete',
    partitionDetails: [],
    createdAt: resource.metadata.creationTimestamp ?? '',
  };
}

/**
 * Topics as Kafka has them. Partition sizes are 0: kafkajs has no DescribeLogDirs. A topic made
 * over the protocol has no KafkaTopic to date it; it is dated when first seen here.
 */
async function describeTopics(
  admin: StreamingAdmin,
  createdAt: Map<string, string | undefined>,
  now: () => number,
  only?: string[],
): Promise<TopicObservation[]> {
  const names = only ?? (await admin.listTopics()).filter((name) => !isInternalTopic(name));
  if (names.length === 0) return [];
  const [{ topics }, { resources }] = await Promise.all([
    admin.fetchTopicMetadata({ topics: names }),
    admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({
        type: ConfigResourceTypes.TOPIC,
        name,
        configNames: ['retention.ms', 'cleanup.policy', 'flush.messages', 'flush.ms'],
      })),
    }),
  ]);
  return Promise.all(
    topics.map(async (topic): Promise<TopicObservation> => {
      const offsets = new Map(
        (await admin.fetchTopicOffsets(topic.name)).map((each) => [each.partition, each] as const),
      );
      const config = new Map(
        resources
          .find((resource) => resource.resourceName === topic.name)
          ?.configEntries.map((entry) => [entry.configName, entry.configValue] as const) ?? [],
      );
      const partitions = [...topic.partitions].sort((a, b) => a.partitionId - b.partitionId);
      return {
        name: topic.name,
        partitions: partitions.length,
        replicas: partitions[0]?.replicas.length ?? 0,
        retentionMs: Number(config.get('retention.ms') ?? -1),
        cleanupPolicy: config.get('cleanup.policy') === 'compact' ? 'compact' : 'delete',
        ...flushSettingsOf(config),
        partitionDetails: partitions.map((partition) => ({
          partition: partition.partitionId,
          leader: partition.leader,
          logStartOffset: Number(offsets.get(partition.partitionId)?.low ?? 0),
          logEndOffset: Number(offsets.get(partition.partitionId)?.high ?? 0),
          sizeBytes: 0,
        })),
        createdAt: createdAt.get(topic.name) ?? new Date(now()).toISOString(),
      };
    }),
  );
}

async function groupObservation(
  admin: StreamingAdmin,
  group: Awaited<ReturnType<Admin['describeGroups']>>['groups'][number],
): Promise<GroupObservation> {
  const members = group.members.map((member) => {
    const decoded = member.memberAssignment.length
      ? AssignerProtocol.MemberAssignment.decode(member.memberAssignment)
      : null;
    return {
      memberId: member.memberId,
      clientId: member.clientId,
      host: member.clientHost,
      assignments: Object.entries(decoded?.assignment ?? {}).map(([topic, partitions]) => ({
        topic,
        partitions: [...partitions].sort((a, b) => a - b),
      })),
    };
  });
  const committed = await admin.fetchOffsets({ groupId: group.groupId });
  const topics = new Set([
    ...members.flatMap((member) => member.assignments.map((assignment) => assignment.topic)),
    ...committed
      .filter((topic) => topic.partitions.some((partition) => Number(partition.offset) >= 0))
      .map((topic) => topic.topic),
  ]);
  return {
    groupId: group.groupId,
    state: group.state,
    protocol: group.protocol,
    members,
    topics: [...topics].sort(),
  };
}

interface LagSample {
  at: number;
  committedOffset: number;
  logEndOffset: number;
}

/**
 * Burrow's rules, on the last few samples of each partition (offsets as this replica last read
 * them; Kafka keeps no history of commits):
 * - OK: no lag, or too few samples to judge;
 * - STOP: lag, the committed offset unmoved across the window, and no member in the group;
 * - STALL: the same, with members in the group (consumers alive, not progressing);
 * - WARN: the committed offset moves but the lag grew at every sample;
 * - otherwise OK.
 * The group is ERR when a partition is STOP or STALL, else WARN when one is WARN, else OK.
 * Time lag: since the first sample that showed records past the committed offset.
 */
class LagWindow {
  static readonly SIZE = 10;
  static readonly JUDGED_FROM = 3;
  private readonly samples = new Map<string, LagSample[]>();

  judge(
    key: string,
    at: number,
    groupState: string,
    partition: Omit<PartitionLag, 'timeLagSeconds' | 'status'>,
  ): PartitionLag {
    const window = [...(this.samples.get(key) ?? []), { at, ...partition }].slice(-LagWindow.SIZE);
    this.samples.set(key, window);
    if (partition.lag === 0) return { ...partition, timeLagSeconds: 0, status: 'OK' };
    const caughtUp = window.findLastIndex((sample) => sample.logEndOffset <= partition.committedOffset);
    const behindSince = window[caughtUp + 1]?.at ?? window[0]!.at;
    const timeLagSeconds = Math.round((at - behindSince) / 1000);
    return { ...partition, timeLagSeconds, status: statusOf(window, groupState) };
  }

  forget(clusterId: string): void {
    for (const key of this.samples.keys()) if (key.startsWith(`${clusterId}/`)) this.samples.delete(key);
  }
}

function statusOf(window: LagSample[], groupState: string): LagStatus {
  if (window.length < LagWindow.JUDGED_FROM) return 'OK';
  const lagOf = (sample: LagSample) => sample.logEndOffset - sample.committedOffset;
  if (window.every((sample) => sample.committedOffset === window[0]!.committedOffset)) {
    return groupState === 'Empty' || groupState === 'Dead' ? 'STOP' : 'STALL';
  }
  const growing = window.slice(1).every((sample, index) => lagOf(sample) > lagOf(window[index]!));
  return growing ? 'WARN' : 'OK';
}

function groupLagOf(groupId: string, partitions: PartitionLag[]): GroupLag {
  const statuses = new Set(partitions.map((partition) => partition.status));
  const status: LagStatus =
    statuses.has('STOP') || statuses.has('STALL') ? 'ERR' : statuses.has('WARN') ? 'WARN' : 'OK';
  return {
    groupId,
    totalLag: partitions.reduce((sum, partition) => sum + partition.lag, 0),
    status,
    timeLagSeconds: Math.max(0, ...partitions.map((partition) => partition.timeLagSeconds)),
    partitions,
  };
}
