import { describe, expect, it } from 'vitest';
import type {
  StreamingCluster,
  StreamingClusterPhase,
  StreamingTopic,
  StreamingUserAcl,
  StreamingUserSpec,
} from '../../crds/streaming.js';
import { eventsForChange } from '../../integrations/events/event-bridge.js';
import {
  aclsProblem,
  clusterErrorStatus,
  clusterNotFound,
  clusterRequeueMs,
  clusterSpecProblem,
  partitionsBefore,
  userSpecProblem,
  waitingForCluster,
  clusterStatus,
  consumerGroupProblem,
  defaultReplicas,
  defaultRetention,
  flushDiffers,
  flushProblem,
  formatRetention,
  mirroredFlush,
  monthlyPriceUsd,
  parseRetention,
  partitionBudgetProblem,
  regionProblem,
  replicasProblem,
  retentionProblem,
  streamingLimits,
  tierProblem,
  topicNameProblem,
  topicSpecProblem,
  topicStatus,
  userNameProblem,
  userStatus,
  GIGABYTE,
  groupSummaries,
  storageCondition,
} from '../../controllers/streaming/engine.js';
import { childObjectName } from '../../controllers/streaming/ids.js';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import { restIdOf, workloadIdOf } from '../../crds/ids.js';

const NOW = new Date('2026-03-01T09:00:00Z');
const GENERATION = 2;
const GB = 1024 ** 3;
const DAY = 86_400_000;

describe('the tier table', () => {
  it.each([
    ['starter', { brokers: 1, partitions: 50, storageBytes: 10 * GB, retentionMaxMs: 7 * DAY }, 29],
    ['pro', { brokers: 3, partitions: 500, storageBytes: 100 * GB, retentionMaxMs: 30 * DAY }, 99],
    ['enterprise', { brokers: 5, partitions: null, storageBytes: 1024 * GB, retentionMaxMs: null }, null],
  ] as const)('%s allows %j for $%s a month', (tier, limits, price) => {
    expect(streamingLimits(tier)).toEqual(limits);
    expect(monthlyPriceUsd(tier)).toBe(price);
  });

  it.each([
    ['starter', '7d', 1],
    ['pro', '30d', 3],
    ['enterprise', '7d', 3],
  ] as const)('%s topics default to retention %s and %i replicas', (tier, retention, replicas) => {
    expect(defaultRetention(tier)).toBe(retention);
    expect(defaultReplicas(tier)).toBe(replicas);
  });
});

describe('cluster validation', () => {
  it.each([
    ['starter', undefined],
    ['enterprise', undefined],
    ['platinum', 'tier must be one of starter, pro, enterprise'],
  ])('tier %s', (tier, message) => {
    expect(tierProblem(tier)?.message).toBe(message);
  });

  it.each([
    ['us-east-1', undefined],
    ['mars-1', "region must be one of the platform's regions: us-east-1, eu-west-1"],
  ])('region %s', (region, message) => {
    expect(regionProblem(region, ['us-east-1', 'eu-west-1'])?.message).toBe(message);
  });
});

describe('topic names follow Kafka', () => {
  it.each([
    ['orders', undefined],
    ['Orders.created_v2-eu', undefined],
    ['a'.repeat(249), undefined],
    ['a'.repeat(250), 'a topic name has at most 249 characters, got 250'],
    ['.', 'a topic name cannot be "."'],
    ['..', 'a topic name cannot be ".."'],
    ['orders/eu', 'a topic name may hold only ASCII letters, digits, ".", "_" and "-"'],
    ['commandes é', 'a topic name may hold only ASCII letters, digits, ".", "_" and "-"'],
    ['', 'a topic name must not be empty'],
  ])('%s', (name, message) => {
    expect(topicNameProblem(name)?.message).toBe(message);
  });
});

describe('retention', () => {
  it.each([
    ['7d', 7 * DAY],
    ['12h', 12 * 3_600_000],
    ['30m', 30 * 60_000],
    ['-1', -1],
    ['0d', undefined],
    ['7 days', undefined],
    ['1w', undefined],
    ['', undefined],
  ])('parses %s as %s ms', (text, ms) => {
    expect(parseRetention(text)).toBe(ms);
  });

  it.each([
    [7 * DAY, '7d'],
    [36 * 3_600_000, '36h'],
    [90 * 60_000, '90m'],
    [-1, '-1'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatRetention(ms)).toBe(text);
  });

  it.each([
    ['starter', '7d', undefined],
    ['starter', '168h', undefined],
    ['starter', '8d', "retention 8d is over the starter tier's maximum of 7d"],
    ['pro', '30d', undefined],
    ['pro', '31d', "retention 31d is over the pro tier's maximum of 30d"],
    [
      'starter',
      '-1',
      'retention -1 (forever) is only for the enterprise tier; the starter tier keeps at most 7d',
    ],
    ['enterprise', '-1', undefined],
    ['enterprise', '3650d', undefined],
    [
      'pro',
      'forever',
      'retention must be a whole number of days, hours or minutes (7d, 12h, 30m) or -1 for forever',
    ],
  ] as const)('%s tier, retention %s', (tier, retention, message) => {
    expect(retentionProblem(retention, tier)?.message).toBe(message);
  });
});

describe('partitions and replicas', () => {
  it.each([
    [{ tier: 'starter', used: 0, wanted: 50 }, undefined],
    [
      { tier: 'starter', used: 45, wanted: 10 },
      "partitions 10 is over the cluster's partition limit of 50 (tier starter): 45 are used by other topics, 5 remain",
    ],
    [{ tier: 'pro', used: 400, wanted: 100 }, undefined],
    [{ tier: 'enterprise', used: 100_000, wanted: 1_000 }, undefined],
  ] as const)('budget %j', (input, message) => {
    expect(partitionBudgetProblem(input)?.message).toBe(message);
  });

  it.each([
    ['starter', 1, undefined],
    ['starter', 2, "replicas 2 is more than the cluster's 1 broker (tier starter)"],
    ['pro', 3, undefined],
    ['pro', 4, "replicas 4 is more than the cluster's 3 brokers (tier pro)"],
  ] as const)('%s tier, %i replicas', (tier, replicas, message) => {
    expect(replicasProblem(replicas, tier)?.message).toBe(message);
  });
});

describe('a topic spec, rule by rule', () => {
  const valid = { name: 'orders', partitions: 3, replicas: 1, retention: '7d' };
  const inTier = { tier: 'starter', usedPartitions: 0, withinTier: true } as const;

  it.each([
    ['valid', valid, inTier, undefined],
    ['a bad name', { ...valid, name: 'a b' }, inTier, 'name'],
    [
      'a shrink',
      { ...valid, partitions: 2 },
      { ...inTier, currentPartitions: 3 },
      'partitions can only grow',
    ],
    ['a grow', { ...valid, partitions: 6 }, { ...inTier, currentPartitions: 3 }, undefined],
    [
      'over the budget',
      { ...valid, partitions: 10 },
      { ...inTier, usedPartitions: 45 },
      'partition limit of 50',
    ],
    ['retention over the max', { ...valid, retention: '8d' }, inTier, "tier's maximum of 7d"],
    ['replicas over brokers', { ...valid, replicas: 3 }, inTier, 'more than the cluster'],
    [
      'mirrored, past the tier',
      { ...valid, partitions: 80, retention: '8d' },
      { ...inTier, withinTier: false },
      undefined,
    ],
    [
      'mirrored, unparsable retention',
      { ...valid, retention: 'x' },
      { ...inTier, withinTier: false },
      'whole number',
    ],
  ] as const)('%s', (_case, spec, context, message) => {
    const problem = topicSpecProblem(spec, context);
    if (message === undefined) expect(problem).toBeUndefined();
    else expect(problem?.message).toContain(message);
  });
});

describe('users', () => {
  it.each([
    ['billing-app', undefined],
    ['svc.orders_v2', undefined],
    ['a'.repeat(65), 'a user name has 1 to 64 ASCII letters, digits, ".", "_" or "-"'],
    ['with space', 'a user name has 1 to 64 ASCII letters, digits, ".", "_" or "-"'],
    ['a,b=c', 'a user name has 1 to 64 ASCII letters, digits, ".", "_" or "-"'],
    ['cloudplane-connect.0a1b', "names starting with cloudplane- are the platform's own"],
  ])('name %s', (name, message) => {
    expect(userNameProblem(name)?.message).toBe(message);
  });

  it.each([
    [undefined, true],
    ['billing', true],
    ['billing-*', true],
    ['*', false],
    ['bill*ing', false],
    ['billing**', false],
  ])('consumer group %s is accepted: %s', (group, accepted) => {
    expect(consumerGroupProblem(group) === undefined).toBe(accepted);
  });

  const acl = (overrides: Partial<StreamingUserAcl> = {}): StreamingUserAcl => ({
    resourceType: 'topic',
    patternType: 'literal',
    name: 'orders',
    operations: ['read', 'describe'],
    permission: 'allow',
    ...overrides,
  });
  it.each([
    [[acl()], undefined],
    [[acl(), acl({ resourceType: 'group', patternType: 'prefixed', name: 'billing' })], undefined],
    [[acl({ operations: [] })], 'acls[0].operations'],
    [[acl(), acl({ operations: ['read', 'read'] })], 'acls[1].operations'],
    [[acl({ name: '*' })], undefined],
    [[acl({ name: 'orders/*' })], 'acls[0].name'],
    [[acl({ name: '*', patternType: 'prefixed' })], 'acls[0].name'],
    [
      [
        acl({
          resourceType: 'transactional_id',
          name: 'ledger-',
          patternType: 'prefixed',
          operations: ['write'],
        }),
      ],
      undefined,
    ],
    [[acl({ resourceType: 'cluster', name: 'kafka-cluster', operations: ['idempotent_write'] })], undefined],
    [[acl({ resourceType: 'cluster', name: 'orders', operations: ['idempotent_write'] })], 'acls[0].name'],
    [[acl({ resourceType: 'cluster', name: 'kafka-cluster', operations: ['write'] })], 'acls[0].operations'],
    [[acl({ operations: ['idempotent_write'] })], 'acls[0].operations'],
    [[acl({ resourceType: 'cluster', name: 'kafka-cluster', operations: ['alter', 'describe'] })], undefined],
    [
      [acl({ resourceType: 'cluster', name: 'kafka-cluster', operations: ['alter', 'read'] })],
      'acls[0].operations',
    ],
  ] as const)('acls %j', (acls, field) => {
    expect(aclsProblem(acls)?.field).toBe(field);
  });
});

describe('statuses', () => {
  function observation(overrides: Partial<StreamingClusterObservation> = {}): StreamingClusterObservation {
    return {
      realization: 'real',
      state: 'ready',
      bootstrapServers: ['127.0.0.1:29092'],
      caCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      usage: { storageBytes: 2048, partitions: 4 },
      ...overrides,
    };
  }

  it.each([
    ['ready', 'running', 'True'],
    ['provisioning', 'provisioning', 'False'],
    ['degraded', 'degraded', 'False'],
    ['recorded', 'error', 'False'],
  ] as const)('a cluster observed %s is %s, Ready %s', (state, phase, ready) => {
    const status = clusterStatus(undefined, 'pro', observation({ state }), {
      generation: GENERATION,
      now: NOW,
    });
    expect(status).toMatchObject({
      phase,
      brokers: 3,
      bootstrapServers: ['127.0.0.1:29092'],
      usage: { storageBytes: 2048, partitions: 4 },
      limits: streamingLimits('pro'),
      observedGeneration: GENERATION,
    });
    expect(status.conditions?.[0]).toMatchObject({ type: 'Ready', status: ready });
  });

  it('a cluster that ran and then fails is degraded; one never made is in error, with the reason', () => {
    const running = clusterStatus(undefined, 'starter', observation(), { generation: 1, now: NOW });
    const failure = { reason: 'PortPoolExhausted', message: 'no free port' };
    expect(clusterErrorStatus(running, 'starter', failure, { generation: 1, now: NOW })).toMatchObject({
      phase: 'degraded',
      message: 'no free port',
      bootstrapServers: ['127.0.0.1:29092'],
    });
    const fresh = clusterErrorStatus(undefined, 'starter', failure, { generation: 1, now: NOW });
    expect(fresh).toMatchObject({ phase: 'error', realization: 'recorded' });
    expect(fresh.conditions?.[0]).toMatchObject({ reason: 'PortPoolExhausted', status: 'False' });
  });

  it('a ready topic drops the message it had while pending', () => {
    const pending = topicStatus(
      undefined,
      { phase: 'pending', reason: 'WaitingForCluster', message: 'waiting' },
      { generation: 1, now: NOW },
    );
    const ready = topicStatus(
      pending,
      {
        phase: 'ready',
        observation: {
          name: 'orders',
          partitions: 3,
          replicas: 1,
          retentionMs: 7 * DAY,
          cleanupPolicy: 'delete',
          partitionDetails: [],
          createdAt: '2026-03-01T09:00:01.000Z',
        },
      },
      { generation: 1, now: NOW },
    );
    expect(ready).toEqual({
      phase: 'ready',
      partitions: 3,
      createdAt: '2026-03-01T09:00:01.000Z',
      observedGeneration: 1,
      conditions: [expect.objectContaining({ type: 'Ready', status: 'True' })],
    });
  });

  it('a user in error says why', () => {
    expect(
      userStatus(
        undefined,
        { phase: 'error', reason: 'Refused', message: 'no' },
        { generation: 1, now: NOW },
      ),
    ).toMatchObject({ phase: 'error', message: 'no', conditions: [{ reason: 'Refused', status: 'False' }] });
  });
});

describe('storage near the tier limit', () => {
  const context = { generation: 1, now: new Date('2026-03-01T00:00:00Z') };
  it.each([
    ['well within', 1 * GIGABYTE, 10 * GIGABYTE, 'False', '10% of the tier'],
    ['at 80%', 8 * GIGABYTE, 10 * GIGABYTE, 'True', 'the oldest records'],
    ['past the limit', 11 * GIGABYTE, 10 * GIGABYTE, 'True', '110%'],
    ['without a limit', 5_000 * GIGABYTE, null, 'False', 'no storage limit'],
  ] as const)('%s', (_case, used, limit, status, message) => {
    const condition = storageCondition(used, limit, context);
    expect(condition).toMatchObject({ type: 'StorageNearLimit', status });
    expect(condition.message).toContain(message);
  });
});

describe('consumer groups on the cluster status', () => {
  it('lists the most lagging first, with members and Burrow status', () => {
    const group = (groupId: string, members: number) => ({
      groupId,
      state: 'Stable',
      protocol: 'roundrobin',
      topics: ['orders'],
      members: Array.from({ length: members }, (_, index) => ({
        memberId: `m${index}`,
        clientId: 'c',
        host: '/127.0.0.1',
        assignments: [],
      })),
    });
    const lag = (groupId: string, totalLag: number, status: 'OK' | 'WARN') => ({
      groupId,
      totalLag,
      status,
      timeLagSeconds: 0,
      partitions: [],
    });
    expect(
      groupSummaries(
        [group('a', 1), group('b', 2), group('c', 0)],
        new Map([
          ['a', lag('a', 3, 'OK')],
          ['b', lag('b', 40, 'WARN')],
        ]),
      ),
    ).toEqual([
      { groupId: 'b', state: 'Stable', members: 2, totalLag: 40, status: 'WARN' },
      { groupId: 'a', state: 'Stable', members: 1, totalLag: 3, status: 'OK' },
      { groupId: 'c', state: 'Stable', members: 0, totalLag: 0, status: 'OK' },
    ]);
  });
});

describe('names', () => {
  it.each([
    ['esc-0a1b2c3d4e5f', 'esc_0a1b2c3d4e5f'],
    ['events', 'events'],
  ])('object %s is REST id %s', (name, id) => {
    expect(restIdOf(name)).toBe(id);
  });

  it('gives a cluster named with kubectl a workload id of its namespace and name', () => {
    expect(workloadIdOf('esc', 'org-a', 'esc-0a1b2c3d4e5f')).toBe('esc_0a1b2c3d4e5f');
    expect(workloadIdOf('esc', 'org-a', 'events')).toMatch(/^esc_[0-9a-f]{12}$/);
    expect(workloadIdOf('esc', 'org-a', 'events')).not.toBe(workloadIdOf('esc', 'org-b', 'events'));
  });

  it.each(['Orders.Created', 'orders_created', 'orders.created', '__weird__', 'x'.repeat(249)])(
    'names the child %s with a valid, distinct object name',
    (topic) => {
      const name = childObjectName('esc-0a1b2c3d4e5f', topic);
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(name.length).toBeLessThanOrEqual(253);
      expect(name.startsWith('esc-0a1b2c3d4e5f-')).toBe(true);
    },
  );

  it('keeps topics that differ only in case or punctuation apart', () => {
    const names = ['Orders', 'orders', 'orders.created', 'orders_created'].map((topic) =>
      childObjectName('esc-0a1b2c3d4e5f', topic),
    );
    expect(new Set(names).size).toBe(4);
    expect(names[2]).toMatch(/^esc-0a1b2c3d4e5f-orders-created-[0-9a-f]{10}$/);
  });
});

describe('platform events of a cluster', () => {
  const object = (phase?: StreamingClusterPhase): StreamingCluster => ({
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind: 'StreamingCluster',
    metadata: { name: 'esc-0a1b2c3d4e5f', namespace: 'org-a', generation: 1 },
    spec: { name: 'events', tier: 'starter', region: 'us-east-1' },
    ...(phase ? { status: { phase } } : {}),
  });

  it.each([
    ['made', undefined, object(), ['streaming_cluster.created']],
    ['running', object('provisioning'), object('running'), ['streaming_cluster.running']],
    ['degraded', object('running'), object('degraded'), ['streaming_cluster.degraded']],
    ['in error', object(), object('error'), ['streaming_cluster.error']],
    ['provisioning (no event)', object(), object('provisioning'), []],
    ['deleted', object('running'), undefined, ['streaming_cluster.deleted']],
  ] as const)('%s', (_change, previous, current, types) => {
    expect(eventsForChange(previous, current).map((event) => event.type)).toEqual(types);
  });
});

describe('topic and user reconcile decisions', () => {
  const topic = (name: string, createdAt: string, partitions: number, deleting = false) =>
    ({
      metadata: {
        name,
        creationTimestamp: createdAt,
        ...(deleting ? { deletionTimestamp: '2026-03-01T10:00:00Z' } : {}),
      },
      spec: { cluster: 'events', name, partitions, replicas: 1, retention: '7d' },
    }) as unknown as StreamingTopic;

  it.each([
    ['the first topic made', topic('a', '2026-03-01T09:00:00Z', 3), 0],
    ['a later topic', topic('c', '2026-03-01T09:02:00Z', 1), 3 + 5],
    ['a topic made in the same second, by name', topic('b2', '2026-03-01T09:01:00Z', 1), 3 + 5],
  ])('the budget before %s', (_case, mine, used) => {
    const siblings = [
      topic('a', '2026-03-01T09:00:00Z', 3),
      topic('b', '2026-03-01T09:01:00Z', 5),
      topic('gone', '2026-03-01T08:00:00Z', 7, true),
      mine,
    ];
    expect(partitionsBefore(mine, siblings)).toBe(used);
  });

  it('a topic or user fails for a missing cluster and waits for one not running', () => {
    expect(clusterNotFound('events')).toEqual({
      phase: 'error',
      reason: 'ClusterNotFound',
      message: 'cluster events does not exist',
    });
    expect(waitingForCluster('events')).toEqual({
      phase: 'pending',
      reason: 'WaitingForCluster',
      message: 'waiting for cluster events to be running',
    });
  });

  it.each([
    ['a valid user', { name: 'app', acls: [] }, undefined],
    ['a reserved name', { name: 'cloudplane-admin', acls: [] }, 'name'],
    ['an empty consumer group', { name: 'app', consumerGroup: '', acls: [] }, 'consumer_group'],
    [
      'an acl without operations',
      {
        name: 'app',
        acls: [{ resourceType: 'topic', name: 'orders', patternType: 'literal', operations: [] }],
      },
      'acls[0].operations',
    ],
  ])('%s', (_case, spec, field) => {
    expect(userSpecProblem({ cluster: 'events', ...spec } as StreamingUserSpec)?.field).toBe(field);
  });
});

describe('cluster reconcile decisions', () => {
  it.each([
    ['a known tier and region', { tier: 'pro', region: 'eu-central' }, undefined],
    ['an unknown tier', { tier: 'huge', region: 'eu-central' }, 'tier'],
    ['a region the platform does not have', { tier: 'starter', region: 'mars-1' }, 'region'],
  ])('%s', (_case, spec, field) => {
    expect(clusterSpecProblem(spec, ['eu-central', 'us-east'])?.field).toBe(field);
  });

  it.each([
    ['provisioning', 30_000, 1_000],
    ['provisioning', 500, 500],
    ['ready', 30_000, 30_000],
    ['degraded', 30_000, 30_000],
  ] as const)(
    'brokers %s with a %i ms refresh are looked at again in %i ms',
    (state, refreshMs, requeueMs) => {
      expect(clusterRequeueMs({ state }, refreshMs)).toBe(requeueMs);
    },
  );
});

describe('topic flush settings', () => {
  it.each([
    [{}, undefined],
    [{ flushMessages: 1, flushMs: -1 }, undefined],
    [{ flushMessages: -1, flushMs: 0 }, undefined],
    [{ flushMessages: 10_000, flushMs: 1000 }, undefined],
    [{ flushMessages: 0 }, 'flush_messages'],
    [{ flushMessages: -2 }, 'flush_messages'],
    [{ flushMessages: 1.5 }, 'flush_messages'],
    [{ flushMs: -2 }, 'flush_ms'],
  ])('%j: problem with %s', (spec, field) => {
    expect(flushProblem(spec)?.field).toBe(field);
  });

  it.each([
    [{ flushMessages: 1, flushMs: Infinity }, {}],
    [{ flushMessages: Infinity, flushMs: Infinity }, { flushMessages: -1 }],
    [
      { flushMessages: 500, flushMs: 1000 },
      { flushMessages: 500, flushMs: 1000 },
    ],
    [{}, {}],
  ])("mirrors the broker's %j as %j", (observed, fields) => {
    expect(mirroredFlush(observed)).toEqual(fields);
  });

  it.each([
    [{}, { flushMessages: 1, flushMs: Infinity }, false],
    [{}, {}, false],
    [{ flushMessages: -1 }, { flushMessages: Infinity, flushMs: Infinity }, false],
    [{ flushMessages: -1 }, { flushMessages: 1, flushMs: Infinity }, true],
    [{}, { flushMessages: 1, flushMs: 1000 }, true],
  ])('object %j against the broker %j differs: %s', (spec, observed, differs) => {
    expect(flushDiffers(spec, observed)).toBe(differs);
  });
});
