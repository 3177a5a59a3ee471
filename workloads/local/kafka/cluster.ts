import type { Logger } from 'pino';
import type {
  GroupLag,
  GroupObservation,
  ScramCredential,
  StreamingLimits,
  StreamingTopicSpec,
  StreamingUserSpec,
  TopicObservation,
} from '../../runtime.js';
import { principalOf, type Principal } from './acl.js';
import { systemClock, type Clock, type TimerHandle } from '../../../observability/clock.js';
import { ErrorCode } from './errors.js';
import { GroupCoordinator } from './groups.js';
import { CommitWindows, DEFAULT_STOP_AFTER_MS, partitionLag, worstStatus } from './lag.js';
import type { CommittedOffset, LogStore, StoredTopic } from './log-store.js';
import {
  cleanupPolicyOf,
  defaultRetentionMs,
  partitionLimitProblem,
  retentionProblem,
  topicNameProblem,
  type Refusal,
} from './topic-rules.js';
import { TransactionCoordinator } from './transactions.js';
import { FLUSH_CONFIGS, isRefusal, planTopicConfigs, type TopicChange } from './topic-configs.js';
import { ConsumerGroupCoordinator, UNIFORM_ASSIGNOR } from './consumer-groups.js';

/** Kafka's `producer.id.expiration.ms` default: a producer idle this long is forgotten. */
const PRODUCER_ID_EXPIRATION_MS = 86_400_000;

export interface BrokerAddress {
  nodeId: number;
  host: string;
  port: number;
}

export interface KafkaClusterOptions {
  /** Names the cluster in Metadata (`cluster_id`) and in logs. */
  clusterId: string;
  store: LogStore;
  /** One TLS listener per broker id; all share this process's state. */
  brokers: BrokerAddress[];
  limits: StreamingLimits;
  logger: Logger;
  clock?: Clock;
  /** A user that bypasses every ACL (the platform's own). */
  superuser?: { name: string; credential: ScramCredential };
  /** How often retention and compaction run; 0: only when `runMaintenance` is called. */
  maintenanceIntervalMs?: number;
  /** Kafka's `transactional.id.expiration.ms`: 7 days unless set. */
  transactionalIdExpirationMs?: number;
}

interface KnownUser {
  credential: ScramCredential;
  principal: Principal;
}

/**
 * One Kafka cluster in this process: its listeners (one per broker id), topics, users, consumer
 * groups and log store. Every listener serves every partition: leadership in Metadata only spreads
 * clients across the ports.
 */
export class KafkaCluster {
  readonly clusterId: string;
  readonly store: LogStore;
  readonly brokers: readonly BrokerAddress[];
  readonly limits: StreamingLimits;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly groups: GroupCoordinator;
  /** Groups of the consumer protocol (KIP-848), whose partitions the broker assigns. */
  readonly consumerGroups: ConsumerGroupCoordinator;
  readonly transactions: TransactionCoordinator;
  readonly commitWindows = new CommitWindows();
  private readonly users = new Map<string, KnownUser>();
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly appendWaiters = new Map<string, Set<() => void>>();
  private readonly topicListeners = new Set<() => void>();
  private readonly aclListeners = new Set<() => void>();
  private maintenanceTimer: TimerHandle | undefined;
  private nextConnectionId = 1;
  private closed = false;

  constructor(private readonly options: KafkaClusterOptions) {
    this.clusterId = options.clusterId;
    this.store = options.store;
    this.brokers = options.brokers;
    this.limits = options.limits;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.groups = new GroupCoordinator(this.clock);
    this.consumerGroups = new ConsumerGroupCoordinator(
      this.clock,
      (topic) => this.store.topic(topic)?.partitions,
    );
    this.transactions = new TransactionCoordinator(
      this.store,
      this.clock,
      this.logger,
      {
        markersWritten: (partitions) => {
          for (const entry of partitions) this.appended(entry.topic, entry.partition);
        },
        offsetsCommitted: (groupId, offsets) => this.offsetsCommitted(groupId, offsets),
      },
      options.transactionalIdExpirationMs,
    );
    for (const user of this.store.users())
      this.users.set(user.name, { credential: user.credential, principal: principalOf(user) });
    if (options.superuser) {
      this.users.set(options.superuser.name, {
        credential: options.superuser.credential,
        principal: { name: options.superuser.name, superuser: true, acls: [] },
      });
    }
  }

  /** Starts the periodic retention and compaction. */
  start(): void {
    this.transactions.start();
    this.scheduleMaintenance();
  }

  /** Runs `closer` (the listeners' shutdown) first when the cluster closes. */
  onClose(closer: () => Promise<void>): void {
    this.closers.push(closer);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.maintenanceTimer) this.clock.clearTimeout(this.maintenanceTimer);
    this.groups.close();
    this.consumerGroups.close();
    this.transactions.close();
    await Promise.all(this.closers.map((closer) => closer()));
    for (const waiters of this.appendWaiters.values()) for (const wake of waiters) wake();
    this.store.close();
  }

  private scheduleMaintenance(): void {
    const interval = this.options.maintenanceIntervalMs ?? 60_000;
    if (interval <= 0 || this.closed) return;
    this.maintenanceTimer = this.clock.setTimeout(() => {
      try {
        this.runMaintenance();
      } catch (error) {
        this.logger.error({ err: error }, 'log maintenance failed');
      }
      this.scheduleMaintenance();
    }, interval);
  }

  /** Retention by time and by the tier's storage, compaction, then idle producers and transactional ids. */
  runMaintenance(): void {
    const now = this.clock.now().getTime();
    this.store.enforceRetention(now, this.limits.storageBytes);
    this.store.compact();
    this.store.expireProducers(now, PRODUCER_ID_EXPIRATION_MS);
    this.transactions.expireTransactionalIds();
  }

  // Users and authentication

  credentialOf(name: string): ScramCredential | undefined {
    return this.users.get(name)?.credential;
  }

  principalOf(name: string): Principal | undefined {
    return this.users.get(name)?.principal;
  }

  saveUser(user: StreamingUserSpec): void {
    this.store.saveUser(user);
    this.users.set(user.name, { credential: user.credential, principal: principalOf(user) });
  }

  /** The users as the platform made them (their ACLs without the consumer group's). */
  userSpecs(): StreamingUserSpec[] {
    return this.store.users();
  }

  /** Saves users whose ACLs a client changed over the Kafka protocol, and tells the listeners. */
  saveAclChanges(users: readonly StreamingUserSpec[]): void {
    if (users.length === 0) return;
    for (const user of users) this.saveUser(user);
    for (const listener of this.aclListeners) listener();
  }

  onAclsChanged(listener: () => void): () => void {
    this.aclListeners.add(listener);
    return () => this.aclListeners.delete(listener);
  }

  removeUser(name: string): void {
    this.store.deleteUser(name);
    this.users.delete(name);
  }

  // Placement

  /** The broker leading a partition: partitions spread round-robin from a per-topic start. */
  leaderOf(topic: string, partition: number): BrokerAddress {
    return this.brokers[(hash(topic) + partition) % this.brokers.length]!;
  }

  replicasOf(topic: StoredTopic, partition: number): number[] {
    const leader = this.brokers.indexOf(this.leaderOf(topic.name, partition));
    const count = Math.min(topic.replicas, this.brokers.length);
    return Array.from({ length: count }, (_, i) => this.brokers[(leader + i) % this.brokers.length]!.nodeId);
  }

  coordinatorOf(groupId: string): BrokerAddress {
    return this.brokers[hash(groupId) % this.brokers.length]!;
  }

  // Topics

  onTopicsChanged(listener: () => void): () => void {
    this.topicListeners.add(listener);
    return () => this.topicListeners.delete(listener);
  }

  private topicsChanged(): void {
    for (const listener of this.topicListeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error({ err: error }, 'a topics listener failed');
      }
    }
  }

  totalPartitions(): number {
    return this.store.topics().reduce((sum, topic) => sum + topic.partitions, 0);
  }

  /** Validates against Kafka's rules and the tier, then creates; a `Refusal` says why not. */
  createTopic(spec: StreamingTopicSpec, validateOnly = false): Refusal | undefined {
    const problem =
      topicNameProblem(spec.name) ??
      (this.store.topic(spec.name)
        ? { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, message: `Topic '${spec.name}' already exists.` }
        : undefined) ??
      (!Number.isInteger(spec.partitions) || spec.partitions < 1
        ? { errorCode: ErrorCode.INVALID_PARTITIONS, message: 'Number of partitions must be larger than 0.' }
        : undefined) ??
      (spec.replicas < 1 || spec.replicas > this.brokers.length
        ? {
            errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
            message: `Replication factor: ${spec.replicas} larger than available brokers: ${this.brokers.length}.`,
          }
        : undefined) ??
      retentionProblem(spec.retentionMs, this.limits) ??
      partitionLimitProblem(this.totalPartitions(), spec.partitions, this.limits, ErrorCode.POLICY_VIOLATION);
    if (problem || validateOnly) return problem;
    this.store.createTopic({ ...spec, createdAt: this.clock.now().toISOString() });
    this.logger.info({ topic: spec.name, partitions: spec.partitions }, 'topic created');
    this.topicsChanged();
    return undefined;
  }

  /** The spec CreateTopics asks for, with Kafka's defaults (-1) filled in. */
  topicSpecFrom(
    name: string,
    partitions: number,
    replicas: number,
    configs: Map<string, string | null>,
  ): StreamingTopicSpec | Refusal {
    const policy = cleanupPolicyOf(configs.get('cleanup.policy'));
    if (!policy)
      return {
        errorCode: ErrorCode.INVALID_CONFIG,
        message: `Invalid value ${configs.get('cleanup.policy')} for configuration cleanup.policy`,
      };
    const retention = configs.get('retention.ms');
    const retentionMs =
      retention === undefined || retention === null ? defaultRetentionMs(this.limits) : Number(retention);
    const flush = planTopicConfigs(
      FLUSH_CONFIGS.filter((config) => configs.has(config)).map((config) => ({
        name: config,
        value: configs.get(config) ?? null,
      })),
      this.limits,
    );
    if (isRefusal(flush)) return flush;
    return {
      name,
      partitions: partitions === -1 ? 1 : partitions,
      replicas: replicas === -1 ? Math.min(3, this.brokers.length) : replicas,
      retentionMs,
      cleanupPolicy: policy,
      ...flush,
    };
  }

  updateTopicConfig(name: string, change: TopicChange): Refusal | undefined {
    if (change.retentionMs !== undefined) {
      const problem = retentionProblem(change.retentionMs, this.limits);
      if (problem) return problem;
    }
    this.store.updateTopic(name, change);
    this.topicsChanged();
    return undefined;
  }

  deleteTopic(name: string): number {
    if (!this.store.topic(name)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    this.store.deleteTopic(name);
    this.logger.info({ topic: name }, 'topic deleted');
    this.topicsChanged();
    return ErrorCode.NONE;
  }

  createPartitions(name: string, count: number, validateOnly = false): Refusal | undefined {
    const topic = this.store.topic(name);
    if (!topic)
      return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message: `Topic '${name}' does not exist.` };
    if (count <= topic.partitions) {
      return {
        errorCode: ErrorCode.INVALID_PARTITIONS,
        message: `Topic currently has ${topic.partitions} partitions, which is higher than or equal to the requested ${count}.`,
      };
    }
    const problem = partitionLimitProblem(
      this.totalPartitions(),
      count - topic.partitions,
      this.limits,
      ErrorCode.INVALID_PARTITIONS,
    );
    if (problem || validateOnly) return problem;
    this.store.setPartitionCount(name, count);
    this.topicsChanged();
    return undefined;
  }

  observeTopic(topic: StoredTopic): TopicObservation {
    return {
      name: topic.name,
      partitions: topic.partitions,
      replicas: topic.replicas,
      retentionMs: topic.retentionMs,
      cleanupPolicy: topic.cleanupPolicy,
      flushMessages: topic.flushMessages,
      flushMs: topic.flushMs,
      createdAt: topic.createdAt,
      partitionDetails: Array.from({ length: topic.partitions }, (_, partition) => {
        const state = this.store.partition(topic.name, partition);
        return {
          partition,
          leader: this.leaderOf(topic.name, partition).nodeId,
          logStartOffset: state?.logStartOffset ?? 0,
          logEndOffset: state?.logEndOffset ?? 0,
          sizeBytes: state?.sizeBytes ?? 0,
        };
      }),
    };
  }

  // Long-polling fetches

  /** Wakes fetches waiting on `topic`/`partition`. */
  appended(topic: string, partition: number): void {
    const waiters = this.appendWaiters.get(`${topic}\u0000${partition}`);
    if (!waiters) return;
    for (const wake of waiters) wake();
  }

  /** Resolves on the first append to any of `partitions`, or after `ms`. */
  waitForAppend(partitions: readonly { topic: string; partition: number }[], ms: number): Promise<void> {
    return new Promise((resolve) => {
      const keys = partitions.map((entry) => `${entry.topic}\u0000${entry.partition}`);
      const wake = () => {
        clearTimeout(timer);
        for (const key of keys) {
          const set = this.appendWaiters.get(key);
          set?.delete(wake);
          if (set?.size === 0) this.appendWaiters.delete(key);
        }
        resolve();
      };
      const timer = setTimeout(wake, ms);
      for (const key of keys) {
        const set = this.appendWaiters.get(key) ?? new Set();
        set.add(wake);
        this.appendWaiters.set(key, set);
      }
    });
  }

  // Groups as the platform sees them

  /** Records durably committed offsets in the group's lag window. */
  offsetsCommitted(groupId: string, offsets: readonly CommittedOffset[]): void {
    for (const entry of offsets) {
      const end = this.store.partition(entry.topic, entry.partition)?.logEndOffset ?? entry.offset;
      this.commitWindows.record(groupId, entry.topic, entry.partition, {
        offset: entry.offset,
        lag: Math.max(0, end - entry.offset),
        time: entry.commitTime,
      });
    }
  }

  observeGroups(): GroupObservation[] {
    const ids = new Set([
      ...this.groups.list().map((group) => group.groupId),
      ...this.consumerGroups
        .list()
        .filter((group) => group.members.size > 0)
        .map((group) => group.groupId),
      ...this.store.groupsWithOffsets(),
    ]);
    return [...ids].sort().map((groupId) => this.observeGroup(groupId));
  }

  private observeGroup(groupId: string): GroupObservation {
    const consumerGroup = this.consumerGroups.group(groupId);
    if (consumerGroup && consumerGroup.members.size > 0) {
      const members = [...consumerGroup.members.values()].map((member) => ({
        memberId: member.memberId,
        clientId: member.clientId,
        host: member.clientHost,
        assignments: [...member.assigned].map(([topic, partitions]) => ({ topic, partitions })),
      }));
      const topics = new Set([
        ...members.flatMap((member) => member.assignments.map((entry) => entry.topic)),
        ...this.store.committedOffsets(groupId).map((entry) => entry.topic),
      ]);
      return {
        groupId,
        state: this.consumerGroups.stateOf(consumerGroup),
        protocol: UNIFORM_ASSIGNOR,
        members,
        topics: [...topics].sort(),
      };
    }
    const group = this.groups.group(groupId);
    const members = [...(group?.members.values() ?? [])].map((member) => ({
      memberId: member.memberId,
      clientId: member.clientId,
      host: member.clientHost,
      assignments: group?.protocolType === 'consumer' ? decodeConsumerAssignment(member.assignment) : [],
    }));
    const topics = new Set([
      ...members.flatMap((member) => member.assignments.map((entry) => entry.topic)),
      ...this.store.committedOffsets(groupId).map((entry) => entry.topic),
    ]);
    return {
      groupId,
      state: group?.state ?? 'Empty',
      protocol: group?.protocolName ?? '',
      members,
      topics: [...topics].sort(),
    };
  }

  groupLag(groupId: string): GroupLag | undefined {
    const committed = this.store.committedOffsets(groupId);
    if (committed.length === 0 && !this.groups.group(groupId)) return undefined;
    const now = this.clock.now().getTime();
    const partitions = committed
      .filter((entry) => this.store.partition(entry.topic, entry.partition))
      .map((entry) => {
        const state = this.store.partition(entry.topic, entry.partition)!;
        const facts = {
          committedOffset: entry.offset,
          logStartOffset: state.logStartOffset,
          logEndOffset: state.logEndOffset,
          window: this.commitWindows.window(groupId, entry.topic, entry.partition),
          now,
          stopAfterMs: DEFAULT_STOP_AFTER_MS,
        };
        const appendTime =
          state.logEndOffset > entry.offset
            ? this.store.appendTimeOf(entry.topic, entry.partition, entry.offset)
            : undefined;
        return partitionLag(entry.topic, entry.partition, facts, appendTime);
      });
    return {
      groupId,
      totalLag: partitions.reduce((sum, entry) => sum + entry.lag, 0),
      status: worstStatus(partitions.map((entry) => entry.status)),
      timeLagSeconds: Math.max(0, ...partitions.map((entry) => entry.timeLagSeconds)),
      partitions,
    };
  }
}

function hash(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i++) value = (Math.imul(value, 31) + text.charCodeAt(i)) >>> 0;
  return value;
}

/** The topics and partitions in a `consumer` protocol assignment (version, [topic, [partition]], user data). */
function decodeConsumerAssignment(assignment: Buffer): { topic: string; partitions: number[] }[] {
  if (assignment.length < 6) return [];
  try {
    let at = 2;
    const count = assignment.readInt32BE(at);
    at += 4;
    const result: { topic: string; partitions: number[] }[] = [];
    for (let i = 0; i < count; i++) {
      const length = assignment.readInt16BE(at);
      const topic = assignment.toString('utf8', at + 2, at + 2 + length);
      at += 2 + length;
      const partitionCount = assignment.readInt32BE(at);
      at += 4;
      const partitions: number[] = [];
      for (let j = 0; j < partitionCount; j++, at += 4) partitions.push(assignment.readInt32BE(at));
      result.push({ topic, partitions });
    }
    return result;
  } catch {
    return [];
  }
}
