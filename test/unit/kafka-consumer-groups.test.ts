import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isFlexible, type RequestContext } from '../../workloads/local/kafka/apis/api.js';
import { apiModule } from '../../workloads/local/kafka/apis/registry.js';
import {
  CONSUMER_SESSION_TIMEOUT_MS,
  ConsumerGroupCoordinator,
  type Assignment,
  type ConsumerHeartbeat,
} from '../../workloads/local/kafka/consumer-groups.js';
import { ErrorCode } from '../../workloads/local/kafka/errors.js';
import { KafkaCluster, SqliteLogStore } from '../../workloads/local/kafka/index.js';
import { Reader } from '../../workloads/local/kafka/protocol/codec.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import { apiSchemas, decodeMessage, encodeMessage } from '../fixtures/kafka-schema.js';

let clock: FakeClock;
let coordinator: ConsumerGroupCoordinator;

beforeEach(() => {
  clock = new FakeClock('2026-01-01T00:00:00Z');
  coordinator = new ConsumerGroupCoordinator(clock, (topic) => ({ orders: 4, audit: 1 })[topic]);
});

afterEach(() => coordinator.close());

const beat = (fields: Partial<ConsumerHeartbeat>) =>
  coordinator.heartbeat({
    groupId: 'readers',
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    subscribedTopicNames: null,
    serverAssignor: null,
    owned: null,
    clientId: 'unit',
    clientHost: '127.0.0.1',
    ...fields,
  });
const plain = (assignment: Assignment | null) => Object.fromEntries(assignment ?? []);

describe('the consumer group coordinator (KIP-848)', () => {
  it('revokes a partition from its owner before giving it to a new member, moving epochs as it goes', async () => {
    const a = beat({ subscribedTopicNames: ['orders'] });
    expect(a).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(plain(a.assignment)).toEqual({ orders: [0, 1, 2, 3] });
    const aId = a.memberId!;

    const b = beat({ subscribedTopicNames: ['orders'] });
    // Everything is still a's: b waits, with the new epoch, for what a must release.
    expect(b).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect(plain(b.assignment)).toEqual({});
    const bId = b.memberId!;
    expect(coordinator.stateOf(coordinator.group('readers')!)).toBe('Reconciling');

    const revoked = beat({ memberId: aId, memberEpoch: 1, owned: a.assignment });
    expect(revoked.memberEpoch).toBe(1);
    const kept = revoked.assignment!;
    expect(Object.values(plain(kept)).flat()).toHaveLength(2);
    // b asks before a released anything: nothing yet.
    expect(plain(beat({ memberId: bId, memberEpoch: 2, owned: new Map() }).assignment)).toEqual({});

    const released = beat({ memberId: aId, memberEpoch: 1, owned: kept });
    expect(released.memberEpoch).toBe(2);
    const given = beat({ memberId: bId, memberEpoch: 2, owned: new Map() });
    const all = [...kept.get('orders')!, ...given.assignment!.get('orders')!].sort();
    expect(all).toEqual([0, 1, 2, 3]);
    expect(coordinator.stateOf(coordinator.group('readers')!)).toBe('Stable');
  });

  it('fences a stale epoch, refuses an unknown member and an unknown assignor, and lets a member leave', () => {
    const a = beat({ subscribedTopicNames: ['orders', 'audit'] });
    expect(beat({ memberId: a.memberId!, memberEpoch: 7 }).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(beat({ memberId: 'nobody', memberEpoch: 1 }).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(beat({ subscribedTopicNames: ['orders'], serverAssignor: 'range' }).errorCode).toBe(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
    );
    expect(beat({ memberId: a.memberId!, memberEpoch: -1 })).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(coordinator.stateOf(coordinator.group('readers')!)).toBe('Empty');
  });

  it('takes a commit at the member epoch only, and an outside commit only while the group is empty', () => {
    const a = beat({ subscribedTopicNames: ['orders'] });
    expect(coordinator.validateCommit('readers', a.memberEpoch, a.memberId!)).toBe(ErrorCode.NONE);
    expect(coordinator.validateCommit('readers', a.memberEpoch + 1, a.memberId!)).toBe(
      ErrorCode.STALE_MEMBER_EPOCH,
    );
    expect(coordinator.validateCommit('readers', -1, '')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('drops a member not heard from within the session timeout, and its partitions go to the others', async () => {
    const a = beat({ subscribedTopicNames: ['orders'] });
    const b = beat({ subscribedTopicNames: ['orders'] });
    const released = beat({ memberId: a.memberId!, memberEpoch: 1, owned: a.assignment });
    beat({ memberId: a.memberId!, memberEpoch: 1, owned: released.assignment });
    await clock.advance(CONSUMER_SESSION_TIMEOUT_MS - 1);
    beat({ memberId: a.memberId!, memberEpoch: 2, owned: released.assignment });
    await clock.advance(1);
    // b went silent a whole session ago: a gets everything.
    expect(coordinator.group('readers')!.members.has(b.memberId!)).toBe(false);
    const after = beat({ memberId: a.memberId!, memberEpoch: 2, owned: released.assignment });
    expect(plain(after.assignment)).toEqual({ orders: [0, 1, 2, 3] });
  });
});

describe('ConsumerGroupHeartbeat and ConsumerGroupDescribe against their schemas', () => {
  let dir: string;
  let cluster: KafkaCluster;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-kip848-'));
    cluster = new KafkaCluster({
      clusterId: 'esc_kip848_unit',
      store: new SqliteLogStore(path.join(dir, 'log.db')),
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 1 }],
      limits: { brokers: 1, partitions: null, storageBytes: null, retentionMaxMs: null },
      logger: pino({ level: 'silent' }),
      clock,
      maintenanceIntervalMs: 0,
    });
    cluster.createTopic({
      name: 'orders',
      partitions: 2,
      replicas: 1,
      retentionMs: -1,
      cleanupPolicy: 'delete',
    });
  });

  afterEach(async () => {
    await cluster.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function call(key: number, request: Record<string, unknown>, acls = true) {
    const module = apiModule(key)!;
    const schemas = apiSchemas(key);
    const context: RequestContext = {
      cluster,
      version: 0,
      flexible: isFlexible(module, 0),
      clientId: 'unit',
      clientHost: '127.0.0.1',
      brokerId: 0,
      sasl: { mechanism: undefined, scram: undefined, rawTokens: false, principal: undefined, failed: false },
      principal: acls
        ? { name: 'admin', superuser: true, acls: [] }
        : { name: 'nobody', superuser: false, acls: [] },
      log: cluster.logger,
    };
    const answer = await module.handle(
      context,
      new Reader(encodeMessage(schemas.request, 0, request), 0, true),
    );
    return decodeMessage(schemas.response, 0, answer!.toBuffer()) as Record<string, unknown>;
  }

  const join = {
    GroupId: 'readers',
    MemberId: '',
    MemberEpoch: 0,
    InstanceId: null,
    RackId: null,
    RebalanceTimeoutMs: 60_000,
    SubscribedTopicNames: ['orders'],
    ServerAssignor: null,
    TopicPartitions: [],
  };

  it('joins a member with the partitions by topic id, and describes the group with its epochs', async () => {
    const topicId = cluster.store.topic('orders')!.topicId;
    const joined = await call(68, join);
    expect(joined).toMatchObject({
      ErrorCode: 0,
      MemberEpoch: 1,
      HeartbeatIntervalMs: 5000,
      Assignment: { TopicPartitions: [{ TopicId: topicId, Partitions: [0, 1] }] },
    });
    const described = await call(69, {
      GroupIds: ['readers', 'missing'],
      IncludeAuthorizedOperations: false,
    });
    expect(described.Groups).toMatchObject([
      {
        ErrorCode: 0,
        GroupId: 'readers',
        GroupState: 'Stable',
        GroupEpoch: 1,
        AssignmentEpoch: 1,
        AssignorName: 'uniform',
        Members: [
          {
            MemberId: joined.MemberId,
            MemberEpoch: 1,
            SubscribedTopicNames: ['orders'],
            Assignment: { TopicPartitions: [{ TopicName: 'orders', Partitions: [0, 1] }] },
            TargetAssignment: { TopicPartitions: [{ TopicName: 'orders', Partitions: [0, 1] }] },
          },
        ],
      },
      { ErrorCode: ErrorCode.GROUP_ID_NOT_FOUND, GroupId: 'missing' },
    ]);
  });

  it('keeps the two protocols apart: a classic member cannot join a consumer group', async () => {
    await call(68, join);
    const schemas = apiSchemas(11);
    const context: RequestContext = {
      cluster,
      version: 9,
      flexible: true,
      clientId: 'classic',
      clientHost: '127.0.0.1',
      brokerId: 0,
      sasl: { mechanism: undefined, scram: undefined, rawTokens: false, principal: undefined, failed: false },
      principal: { name: 'admin', superuser: true, acls: [] },
      log: cluster.logger,
    };
    const request = encodeMessage(schemas.request, 9, {
      GroupId: 'readers',
      SessionTimeoutMs: 10_000,
      RebalanceTimeoutMs: 10_000,
      MemberId: '',
      GroupInstanceId: null,
      ProtocolType: 'consumer',
      Protocols: [{ Name: 'range', Metadata: Buffer.alloc(0) }],
      Reason: null,
    });
    const answer = await apiModule(11)!.handle(context, new Reader(request, 0, true));
    expect(decodeMessage(schemas.response, 9, answer!.toBuffer())).toMatchObject({
      ErrorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    });
  });

  it('refuses a member without READ on the group with GROUP_AUTHORIZATION_FAILED', async () => {
    expect((await call(68, join, false)).ErrorCode).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  });
});
