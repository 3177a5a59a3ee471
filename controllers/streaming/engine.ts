/**
 * The decisions of the event-streaming family, as pure functions: what each tier allows, which
 * names, retentions, partition counts and access rules are accepted (each refusal names its rule),
 * and a cluster's, topic's or user's status given what the runtime observed.
 */
import type { Condition } from '../../control-plane/types.js';
import type {
  ConsumerGroupSummary,
  StreamingClusterPhase,
  StreamingClusterStatus,
  StreamingTierName,
  StreamingTopic,
  StreamingTopicPhase,
  StreamingTopicStatus,
  StreamingUserAcl,
  StreamingUserPhase,
  StreamingUserSpec,
  StreamingUserStatus,
} from '../../crds/streaming.js';
import { aclOperationsProblem, STREAMING_CLUSTER_RESOURCE } from '../../crds/streaming.js';
import type {
  GroupLag,
  GroupObservation,
  StreamingClusterObservation,
  StreamingLimits,
  TopicObservation,
} from '../../workloads/runtime.js';
import { findCondition, setCondition } from '../runtime/conditions.js';
import type { StatusEvent } from '../runtime/status-events.js';

export const TIERS: readonly StreamingTierName[] = ['starter', 'pro', 'enterprise'];
export const DEFAULT_TIER: StreamingTierName = 'starter';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
export const GIGABYTE = 1024 ** 3;

interface TierRow {
  brokers: number;
  storageGb: number;
  /** null: unlimited. */
  partitions: number | null;
  /** null: custom, forever included. */
  retentionMaxMs: number | null;
  /** null: priced by contract. */
  monthlyPriceUsd: number | null;
}

/** The spec's tier table. Enterprise's brokers and storage are its minimums ("5+", "1 TB+"). */
const TIER_TABLE: Readonly<Record<StreamingTierName, TierRow>> = {
  starter: { brokers: 1, storageGb: 10, partitions: 50, retentionMaxMs: 7 * DAY_MS, monthlyPriceUsd: 29 },
  pro: { brokers: 3, storageGb: 100, partitions: 500, retentionMaxMs: 30 * DAY_MS, monthlyPriceUsd: 99 },
  enterprise: { brokers: 5, storageGb: 1024, partitions: null, retentionMaxMs: null, monthlyPriceUsd: null },
};

/** What a tier allows, in the runtime's terms. */
export function streamingLimits(tier: StreamingTierName): StreamingLimits {
  const row = TIER_TABLE[tier];
  return {
    brokers: row.brokers,
    partitions: row.partitions,
    storageBytes: row.storageGb * GIGABYTE,
    retentionMaxMs: row.retentionMaxMs,
  };
}

/** The tier's monthly price in USD; null where it is priced by contract. */
export function monthlyPriceUsd(tier: StreamingTierName): number | null {
  return TIER_TABLE[tier].monthlyPriceUsd;
}

export interface Problem {
  field: string;
  message: string;
}

export function tierProblem(tier: string): Problem | undefined {
  return TIERS.includes(tier as StreamingTierName)
    ? undefined
    : { field: 'tier', message: `tier must be one of ${TIERS.join(', ')}` };
}

export function regionProblem(region: string, regions: readonly string[]): Problem | undefined {
  return regions.includes(region)
    ? undefined
    : { field: 'region', message: `region must be one of the platform's regions: ${regions.join(', ')}` };
}

const KAFKA_NAME = /^[a-zA-Z0-9._-]+$/;
const TOPIC_NAME_MAX = 249;

/** Kafka's rules for a topic name. */
export function topicNameProblem(name: string): Problem | undefined {
  const refuse = (message: string) => ({ field: 'name', message });
  if (name.length === 0) return refuse('a topic name must not be empty');
  if (name.length > TOPIC_NAME_MAX)
    return refuse(`a topic name has at most ${TOPIC_NAME_MAX} characters, got ${name.length}`);
  if (name === '.' || name === '..') return refuse(`a topic name cannot be "${name}"`);
  if (!KAFKA_NAME.test(name))
    return refuse('a topic name may hold only ASCII letters, digits, ".", "_" and "-"');
  return undefined;
}

const RETENTION = /^(\d{1,6})([dhm])$/;
const UNIT_MS: Readonly<Record<string, number>> = { d: DAY_MS, h: HOUR_MS, m: MINUTE_MS };

/** `7d`, `12h`, `30m` in ms; `-1` (forever) is -1; undefined when it is none of these. */
export function parseRetention(text: string): number | undefined {
  if (text === '-1') return -1;
  const match = RETENTION.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  return amount > 0 ? amount * UNIT_MS[match[2]!]! : undefined;
}

/** A retention in ms as the largest whole unit: 604800000 → `7d`, -1 → `-1`. */
export function formatRetention(ms: number): string {
  if (ms < 0) return '-1';
  if (ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS}h`;
  return `${Math.max(1, Math.round(ms / MINUTE_MS))}m`;
}

/** A topic object's `flushMessages` and `flushMs` when absent: every append durable before it is answered. */
export const FLUSH_DEFAULTS = { flushMessages: 1, flushMs: -1 } as const;

/** A flush setting of a topic object (-1: Kafka's Long.MAX_VALUE) as the runtime takes it. */
export function flushSettingOf(value: number): number {
  return value === -1 ? Number.POSITIVE_INFINITY : value;
}

/** A runtime's flush setting as a topic object keeps it. */
export function formatFlushSetting(value: number): number {
  return value === Number.POSITIVE_INFINITY ? -1 : value;
}

interface FlushFields {
  flushMessages?: number;
  flushMs?: number;
}

/**
 * The flush settings a topic object mirrors from the broker's (Infinity: Long.MAX_VALUE): those
 * off the defaults; none that the runtime does not report.
 */
export function mirroredFlush(observed: FlushFields): FlushFields {
  const fields: FlushFields = {};
  for (const key of ['flushMessages', 'flushMs'] as const) {
    const value = observed[key];
    if (value !== undefined && formatFlushSetting(value) !== FLUSH_DEFAULTS[key])
      fields[key] = formatFlushSetting(value);
  }
  return fields;
}

/** Whether the broker's flush settings differ from a topic object's (absent: the defaults). */
export function flushDiffers(spec: FlushFields, observed: FlushFields): boolean {
  return (['flushMessages', 'flushMs'] as const).some(
    (key) =>
      observed[key] !== undefined && flushSettingOf(spec[key] ?? FLUSH_DEFAULTS[key]) !== observed[key],
  );
}

/** `flushMessages` is -1 or at least 1, `flushMs` -1 or at least 0 (Kafka's own bounds). */
export function flushProblem(spec: { flushMessages?: number; flushMs?: number }): Problem | undefined {
  const { flushMessages, flushMs } = spec;
  if (
    flushMessages !== undefined &&
    !(Number.isSafeInteger(flushMessages) && (flushMessages >= 1 || flushMessages === -1))
  )
    return {
      field: 'flush_messages',
      message: 'flush_messages must be a whole number of at least 1, or -1 (no limit)',
    };
  if (flushMs !== undefined && !(Number.isSafeInteger(flushMs) && flushMs >= -1))
    return {
      field: 'flush_ms',
      message: 'flush_ms must be a whole number of ms of at least 0, or -1 (no limit)',
    };
  return undefined;
}

/** A retention the tier refuses: unparsable, past its maximum, or forever where it is not custom. */
export function retentionProblem(retention: string, tier: StreamingTierName): Problem | undefined {
  const ms = parseRetention(retention);
  const maxMs = TIER_TABLE[tier].retentionMaxMs;
  if (ms === undefined) {
    return {
      field: 'retention',
      message: 'retention must be a whole number of days, hours or minutes (7d, 12h, 30m) or -1 for forever',
    };
  }
  if (maxMs === null) return undefined;
  if (ms === -1) {
    return {
      field: 'retention',
      message: `retention -1 (forever) is only for the enterprise tier; the ${tier} tier keeps at most ${formatRetention(maxMs)}`,
    };
  }
  if (ms > maxMs) {
    return {
      field: 'retention',
      message: `retention ${retention} is over the ${tier} tier's maximum of ${formatRetention(maxMs)}`,
    };
  }
  return undefined;
}

/** The retention a topic gets when none is asked for: the tier's maximum, or 7 days where custom. */
export function defaultRetention(tier: StreamingTierName): string {
  return formatRetention(TIER_TABLE[tier].retentionMaxMs ?? 7 * DAY_MS);
}

/** Partitions past the cluster's budget: `used` counts the other topics' partitions. */
export function partitionBudgetProblem(input: {
  tier: StreamingTierName;
  used: number;
  wanted: number;
}): Problem | undefined {
  const limit = TIER_TABLE[input.tier].partitions;
  if (limit === null || input.used + input.wanted <= limit) return undefined;
  const remaining = Math.max(0, limit - input.used);
  return {
    field: 'partitions',
    message:
      `partitions ${input.wanted} is over the cluster's partition limit of ${limit} (tier ${input.tier}): ` +
      `${input.used} are used by other topics, ${remaining} remain`,
  };
}

export function partitionShrinkProblem(current: number, wanted: number): Problem | undefined {
  return wanted < current
    ? { field: 'partitions', message: `partitions can only grow: it is ${current}, asked ${wanted}` }
    : undefined;
}

export function replicasProblem(replicas: number, tier: StreamingTierName): Problem | undefined {
  const { brokers } = TIER_TABLE[tier];
  return replicas > brokers
    ? {
        field: 'replicas',
        message: `replicas ${replicas} is more than the cluster's ${brokers} broker${brokers === 1 ? '' : 's'} (tier ${tier})`,
      }
    : undefined;
}

/** The replicas a topic gets when none is asked for: up to three, as many as there are brokers. */
export function defaultReplicas(tier: StreamingTierName): number {
  return Math.min(3, TIER_TABLE[tier].brokers);
}

/**
 * The first rule a topic's spec breaks, in the order a user fixes them. `withinTier` is false for
 * a topic mirrored from the brokers, whose tier limits were the brokers' to enforce; `current` is
 * the partitions the topic has now (a grow asks only for more).
 */
export function topicSpecProblem(
  spec: {
    name: string;
    partitions: number;
    replicas: number;
    retention: string;
    flushMessages?: number;
    flushMs?: number;
  },
  context: {
    tier: StreamingTierName;
    usedPartitions: number;
    currentPartitions?: number;
    withinTier: boolean;
  },
): Problem | undefined {
  const unparsable = parseRetention(spec.retention) === undefined;
  return (
    topicNameProblem(spec.name) ??
    (context.currentPartitions === undefined
      ? undefined
      : partitionShrinkProblem(context.currentPartitions, spec.partitions)) ??
    (context.withinTier || unparsable ? retentionProblem(spec.retention, context.tier) : undefined) ??
    flushProblem(spec) ??
    (context.withinTier
      ? (replicasProblem(spec.replicas, context.tier) ??
        partitionBudgetProblem({ tier: context.tier, used: context.usedPartitions, wanted: spec.partitions }))
      : undefined)
  );
}

const USER_NAME_MAX = 64;

export function userNameProblem(name: string): Problem | undefined {
  if (name.length === 0 || name.length > USER_NAME_MAX || !KAFKA_NAME.test(name)) {
    return {
      field: 'name',
      message: `a user name has 1 to ${USER_NAME_MAX} ASCII letters, digits, ".", "_" or "-"`,
    };
  }
  if (name.startsWith(RESERVED_USER_PREFIX)) {
    return { field: 'name', message: `names starting with ${RESERVED_USER_PREFIX} are the platform's own` };
  }
  return undefined;
}

/** The platform's own broker users (connector workers, the lag reader) are named with it. */
export const RESERVED_USER_PREFIX = 'cloudplane-';

/** A group id, or a prefix ending in `*`. */
export function consumerGroupProblem(group: string | undefined): Problem | undefined {
  if (group === undefined) return undefined;
  const id = group.endsWith('*') ? group.slice(0, -1) : group;
  if (id.length === 0 || id.length > TOPIC_NAME_MAX || !KAFKA_NAME.test(id)) {
    return {
      field: 'consumer_group',
      message:
        'consumer_group is a group id of ASCII letters, digits, ".", "_" or "-", or such a prefix ending in "*"',
    };
  }
  return undefined;
}

/**
 * Access rules: each names a topic or group (or its prefix, or `*` for all) and at least one
 * operation, once each.
 */
export function aclsProblem(acls: readonly StreamingUserAcl[]): Problem | undefined {
  for (const [index, acl] of acls.entries()) {
    const field = `acls[${index}]`;
    const wildcard = acl.patternType === 'literal' && acl.name === '*';
    if (!wildcard && (acl.name.length > TOPIC_NAME_MAX || !KAFKA_NAME.test(acl.name))) {
      return {
        field: `${field}.name`,
        message: `an acl names a ${acl.resourceType} (or a prefix) of ASCII letters, digits, ".", "_" or "-", or is a literal "*" for every one`,
      };
    }
    if (
      acl.resourceType === 'cluster' &&
      (acl.name !== STREAMING_CLUSTER_RESOURCE || acl.patternType !== 'literal')
    ) {
      return {
        field: `${field}.name`,
        message: `the cluster resource is the literal "${STREAMING_CLUSTER_RESOURCE}"`,
      };
    }
    if (acl.operations.length === 0)
      return { field: `${field}.operations`, message: 'an acl grants or denies at least one operation' };
    const misfit = aclOperationsProblem(acl.resourceType, acl.operations);
    if (misfit) return { field: `${field}.operations`, message: misfit };
    if (new Set(acl.operations).size !== acl.operations.length)
      return { field: `${field}.operations`, message: 'an acl names each operation once' };
  }
  return undefined;
}

export const REASONS = {
  Running: 'Running',
  Provisioning: 'Provisioning',
  Degraded: 'Degraded',
  Recorded: 'Recorded',
  Ready: 'Ready',
  WaitingForCluster: 'WaitingForCluster',
} as const;

function clusterPhaseOf(observation: StreamingClusterObservation): StreamingClusterPhase {
  switch (observation.state) {
    case 'ready':
      return 'running';
    case 'provisioning':
      return 'provisioning';
    case 'degraded':
      return 'degraded';
    case 'recorded':
      // Nothing runs: a recorded cluster is never shown running.
      return 'error';
  }
}

const CLUSTER_REASON: Readonly<Record<StreamingClusterPhase, string>> = {
  running: REASONS.Running,
  provisioning: REASONS.Provisioning,
  degraded: REASONS.Degraded,
  error: REASONS.Recorded,
  deleting: 'Deleting',
};

/** What makes a cluster's spec unacceptable: its tier, or a region the platform does not have. */
export function clusterSpecProblem(
  spec: { tier: string; region: string },
  regions: readonly string[],
): Problem | undefined {
  return tierProblem(spec.tier) ?? regionProblem(spec.region, regions);
}

/** When a cluster is looked at again: within a second while its brokers start, else at the refresh. */
export function clusterRequeueMs(
  observation: Pick<StreamingClusterObservation, 'state'>,
  refreshMs: number,
): number {
  return observation.state === 'provisioning' ? Math.min(refreshMs, 1_000) : refreshMs;
}

/** Why a topic or user fails for good until its cluster exists. */
export function clusterNotFound(cluster: string) {
  return { phase: 'error' as const, reason: 'ClusterNotFound', message: `cluster ${cluster} does not exist` };
}

/** Why a topic or user waits: its cluster's brokers are not running yet. */
export function waitingForCluster(cluster: string) {
  return {
    phase: 'pending' as const,
    reason: REASONS.WaitingForCluster,
    message: `waiting for cluster ${cluster} to be running`,
  };
}

function madeBefore(one: StreamingTopic, other: StreamingTopic): boolean {
  const [a, b] = [one.metadata.creationTimestamp ?? '', other.metadata.creationTimestamp ?? ''];
  return a < b || (a === b && one.metadata.name < other.metadata.name);
}

/**
 * The partitions the cluster's topics made before `topic` (and not being deleted) hold. The budget
 * goes to topics in the order they were made, so a later one over it never takes an earlier
 * one's partitions.
 */
export function partitionsBefore(topic: StreamingTopic, siblings: readonly StreamingTopic[]): number {
  return siblings
    .filter((other) => !other.metadata.deletionTimestamp && madeBefore(other, topic))
    .reduce((sum, other) => sum + (other.spec?.partitions ?? 0), 0);
}

/** What makes a user's spec unacceptable: its name, its consumer group, or its access rules. */
export function userSpecProblem(spec: StreamingUserSpec): Problem | undefined {
  return userNameProblem(spec.name) ?? consumerGroupProblem(spec.consumerGroup) ?? aclsProblem(spec.acls);
}

interface StatusContext {
  generation: number | undefined;
  now: Date;
}

function readyCondition(
  ready: boolean,
  reason: string,
  message: string,
  context: StatusContext,
): Omit<Condition, 'lastTransitionTime'> {
  return {
    type: 'Ready',
    status: ready ? 'True' : 'False',
    reason,
    message,
    observedGeneration: context.generation,
  };
}

/** A cluster's status from what the runtime observed. */
export function clusterStatus(
  current: StreamingClusterStatus | undefined,
  tier: StreamingTierName,
  observation: StreamingClusterObservation,
  context: StatusContext,
  consumerGroups?: ConsumerGroupSummary[],
): StreamingClusterStatus {
  const phase = clusterPhaseOf(observation);
  const limits = streamingLimits(tier);
  const message = observation.message ?? (phase === 'running' ? undefined : `the cluster is ${phase}`);
  return dropUndefined({
    phase,
    realization: observation.realization,
    message,
    brokers: limits.brokers,
    bootstrapServers: observation.bootstrapServers,
    caCertificate: observation.caCertificate || current?.caCertificate,
    limits,
    usage: { storageBytes: observation.usage.storageBytes, partitions: observation.usage.partitions },
    consumerGroups: consumerGroups ?? current?.consumerGroups,
    observedGeneration: context.generation,
    conditions: setCondition(
      setCondition(
        current?.conditions,
        readyCondition(
          phase === 'running',
          CLUSTER_REASON[phase],
          message ?? 'the brokers are running and reachable',
          context,
        ),
        context.now,
      ),
      storageCondition(observation.usage.storageBytes, limits.storageBytes, context),
      context.now,
    ),
  });
}

/**
 * The Events a cluster's new status deserves besides its Ready changes (the runtime records
 * those): `Scaled` when its brokers change with its tier, `StorageNearLimit` when it starts to
 * hold most of what its tier allows.
 */
export function clusterEvents(
  previous: StreamingClusterStatus | undefined,
  next: StreamingClusterStatus,
): StatusEvent[] {
  const events: StatusEvent[] = [];
  if (previous?.brokers !== undefined && next.brokers !== undefined && previous.brokers !== next.brokers) {
    events.push({
      type: 'Normal',
      reason: 'Scaled',
      message: `the cluster runs ${next.brokers} broker${next.brokers === 1 ? '' : 's'} (it ran ${previous.brokers})`,
    });
  }
  const near = findCondition(next.conditions, 'StorageNearLimit');
  if (near?.status === 'True' && findCondition(previous?.conditions, 'StorageNearLimit')?.status !== 'True') {
    events.push({ type: 'Warning', reason: 'StorageNearLimit', message: near.message });
  }
  return events;
}

/** Storage past this share of the tier's is worth a warning: past all of it, retention drops the oldest records. */
export const STORAGE_WARNING_RATIO = 0.8;

/** `StorageNearLimit`: True once the cluster holds most of what its tier allows. */
export function storageCondition(
  usedBytes: number,
  limitBytes: number | null,
  context: StatusContext,
): Omit<Condition, 'lastTransitionTime'> {
  const near = limitBytes !== null && usedBytes >= limitBytes * STORAGE_WARNING_RATIO;
  const percent = limitBytes ? Math.round((usedBytes / limitBytes) * 100) : 0;
  return {
    type: 'StorageNearLimit',
    status: near ? 'True' : 'False',
    reason: near ? 'StorageNearLimit' : 'WithinLimit',
    message:
      limitBytes === null
        ? 'the tier has no storage limit'
        : `${percent}% of the tier's ${Math.round(limitBytes / GIGABYTE)} GB is used${near ? '; the oldest records of delete-policy topics go past the limit' : ''}`,
    observedGeneration: context.generation,
  };
}

/** The groups a cluster's status shows: the most lagging first, at most 100. */
export function groupSummaries(
  groups: readonly GroupObservation[],
  lags: ReadonlyMap<string, GroupLag>,
): ConsumerGroupSummary[] {
  return groups
    .map((group) => {
      const lag = lags.get(group.groupId);
      return {
        groupId: group.groupId,
        state: group.state,
        members: group.members.length,
        totalLag: lag?.totalLag ?? 0,
        status: lag?.status ?? 'OK',
      };
    })
    .sort((a, b) => b.totalLag - a.totalLag || a.groupId.localeCompare(b.groupId))
    .slice(0, 100);
}

/**
 * A cluster whose runtime refused (`reason` from a WorkloadError) or cannot run streaming
 * clusters at all: `error`, or `degraded` once it had run, since its data is still there.
 */
export function clusterErrorStatus(
  current: StreamingClusterStatus | undefined,
  tier: StreamingTierName,
  failure: { reason: string; message: string },
  context: StatusContext,
): StreamingClusterStatus {
  const ranBefore = current?.phase === 'running' || current?.phase === 'degraded';
  return dropUndefined({
    ...current,
    phase: ranBefore ? 'degraded' : 'error',
    realization: current?.realization ?? 'recorded',
    message: failure.message,
    brokers: streamingLimits(tier).brokers,
    limits: streamingLimits(tier),
    observedGeneration: context.generation,
    conditions: setCondition(
      current?.conditions,
      readyCondition(false, failure.reason, failure.message, context),
      context.now,
    ),
  });
}

/** A topic's status: `ready` with what the broker has, or `pending`/`error` with why. */
export function topicStatus(
  current: StreamingTopicStatus | undefined,
  outcome:
    | { phase: 'ready'; observation: TopicObservation }
    | { phase: Exclude<StreamingTopicPhase, 'ready'>; reason: string; message: string },
  context: StatusContext,
): StreamingTopicStatus {
  if (outcome.phase === 'ready') {
    return dropUndefined({
      phase: 'ready' as const,
      partitions: outcome.observation.partitions,
      createdAt: outcome.observation.createdAt || current?.createdAt,
      observedGeneration: context.generation,
      conditions: setCondition(
        current?.conditions,
        readyCondition(true, REASONS.Ready, 'the topic exists on the brokers as specified', context),
        context.now,
      ),
    });
  }
  return dropUndefined({
    ...current,
    phase: outcome.phase,
    message: outcome.message,
    observedGeneration: context.generation,
    conditions: setCondition(
      current?.conditions,
      readyCondition(false, outcome.reason, outcome.message, context),
      context.now,
    ),
  });
}

/** A user's status: `ready` once the brokers accept its credential and rules. */
export function userStatus(
  current: StreamingUserStatus | undefined,
  outcome:
    { phase: 'ready' } | { phase: Exclude<StreamingUserPhase, 'ready'>; reason: string; message: string },
  context: StatusContext,
): StreamingUserStatus {
  const ready = outcome.phase === 'ready';
  const message = ready ? undefined : outcome.message;
  return dropUndefined({
    phase: outcome.phase,
    message,
    observedGeneration: context.generation,
    conditions: setCondition(
      current?.conditions,
      readyCondition(
        ready,
        ready ? REASONS.Ready : outcome.reason,
        message ?? 'the brokers accept the user and its access rules',
        context,
      ),
      context.now,
    ),
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
