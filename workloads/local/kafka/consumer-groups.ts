import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../../../observability/clock.js';
import { ErrorCode } from './errors.js';

/**
 * The consumer group protocol of KIP-848 (ConsumerGroupHeartbeat), beside the classic one in
 * groups.ts: the broker assigns partitions itself and each member reconciles toward its target
 * assignment through heartbeats. A partition taken from a member is revoked first and given to
 * its new owner only once the member's heartbeat no longer lists it, so no partition ever has two
 * owners. Member epochs move to the group's assignment epoch once the member holds nothing it
 * must give up.
 */

/** Kafka's `group.consumer.heartbeat.interval.ms` default. */
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 5_000;
/** Kafka's `group.consumer.session.timeout.ms` default. */
export const CONSUMER_SESSION_TIMEOUT_MS = 45_000;
/** The one server-side assignor: every subscribed partition spread evenly over its subscribers. */
export const UNIFORM_ASSIGNOR = 'uniform';
/** The epoch a member sends to leave its group, and the one a static member sends to leave for now. */
const LEAVE_EPOCH = -1;
const STATIC_LEAVE_EPOCH = -2;

/** Partitions by topic name. */
export type Assignment = Map<string, number[]>;

export interface ConsumerMember {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  /** The partitions the member was given and may consume. */
  assigned: Assignment;
  /** Taken from it by the target, not yet released by the member's heartbeat. */
  revoking: Assignment;
  timer: TimerHandle | undefined;
}

export interface ConsumerGroup {
  groupId: string;
  groupEpoch: number;
  assignmentEpoch: number;
  members: Map<string, ConsumerMember>;
  target: Map<string, Assignment>;
  /** The subscribed topics' partition counts the target was computed for. */
  topicsSeen: string;
}

export interface ConsumerHeartbeat {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  /** Null: unchanged since the last heartbeat. */
  subscribedTopicNames: string[] | null;
  serverAssignor: string | null;
  /** What the member owns now; null: unchanged. */
  owned: Assignment | null;
  clientId: string;
  clientHost: string;
}

export interface ConsumerHeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  assignment: Assignment | null;
}

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

function has(assignment: Assignment, topic: string, partition: number): boolean {
  return assignment.get(topic)?.includes(partition) ?? false;
}

function add(assignment: Assignment, topic: string, partition: number): void {
  assignment.set(
    topic,
    [...(assignment.get(topic) ?? []), partition].sort((a, b) => a - b),
  );
}

function remove(assignment: Assignment, topic: string, partition: number): void {
  const left = (assignment.get(topic) ?? []).filter((entry) => entry !== partition);
  if (left.length > 0) assignment.set(topic, left);
  else assignment.delete(topic);
}

function entries(assignment: Assignment): [string, number][] {
  return [...assignment].flatMap(([topic, partitions]) =>
    partitions.map((partition): [string, number] => [topic, partition]),
  );
}

export class ConsumerGroupCoordinator {
  private readonly groups = new Map<string, ConsumerGroup>();

  constructor(
    private readonly clock: Clock,
    /** A topic's partition count; undefined for a topic that does not exist. */
    private readonly partitionsOf: (topic: string) => number | undefined,
    private readonly sessionTimeoutMs = CONSUMER_SESSION_TIMEOUT_MS,
  ) {}

  group(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  list(): ConsumerGroup[] {
    return [...this.groups.values()];
  }

  stateOf(group: ConsumerGroup): ConsumerGroupState {
    if (group.members.size === 0) return 'Empty';
    if (group.assignmentEpoch < group.groupEpoch) return 'Assigning';
    const settled = [...group.members.values()].every(
      (member) => member.memberEpoch === group.assignmentEpoch && member.revoking.size === 0,
    );
    return settled ? 'Stable' : 'Reconciling';
  }

  heartbeat(request: ConsumerHeartbeat): ConsumerHeartbeatResult {
    const refuse = (errorCode: number, errorMessage: string): ConsumerHeartbeatResult => ({
      errorCode,
      errorMessage,
      memberId: null,
      memberEpoch: -1,
      assignment: null,
    });
    if (request.serverAssignor !== null && request.serverAssignor !== UNIFORM_ASSIGNOR)
      return refuse(ErrorCode.UNSUPPORTED_ASSIGNOR, `the only server assignor is ${UNIFORM_ASSIGNOR}`);
    let group = this.groups.get(request.groupId);
    if (request.memberEpoch === LEAVE_EPOCH || request.memberEpoch === STATIC_LEAVE_EPOCH) {
      const member = group?.members.get(request.memberId);
      if (!group || !member) return refuse(ErrorCode.UNKNOWN_MEMBER_ID, 'the member is not in the group');
      this.removeMember(group, member);
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        memberId: request.memberId,
        memberEpoch: request.memberEpoch,
        assignment: null,
      };
    }
    let member: ConsumerMember | undefined;
    // Joining, a new subscription and new partitions of a subscribed topic each need a new target.
    let changed = false;
    if (request.memberEpoch === 0) {
      if (request.subscribedTopicNames === null)
        return refuse(ErrorCode.INVALID_REQUEST, 'a member joining names the topics it subscribes to');
      if (!group) {
        group = {
          groupId: request.groupId,
          groupEpoch: 0,
          assignmentEpoch: 0,
          members: new Map(),
          target: new Map(),
          topicsSeen: '',
        };
        this.groups.set(group.groupId, group);
      }
      const rejoining = group.members.get(request.memberId);
      if (rejoining) this.removeMember(group, rejoining);
      member = {
        memberId: request.memberId || randomUUID(),
        memberEpoch: 0,
        instanceId: request.instanceId,
        rackId: request.rackId,
        clientId: request.clientId,
        clientHost: request.clientHost,
        subscribedTopicNames: [...request.subscribedTopicNames].sort(),
        assigned: new Map(),
        revoking: new Map(),
        timer: undefined,
      };
      group.members.set(member.memberId, member);
      changed = true;
    } else {
      member = group?.members.get(request.memberId);
      if (!group || !member) return refuse(ErrorCode.UNKNOWN_MEMBER_ID, 'the member is not in the group');
      if (request.memberEpoch !== member.memberEpoch)
        return refuse(
          ErrorCode.FENCED_MEMBER_EPOCH,
          `the member's epoch is ${member.memberEpoch}, not ${request.memberEpoch}`,
        );
      const subscribed = request.subscribedTopicNames && [...request.subscribedTopicNames].sort();
      if (subscribed && subscribed.join('\u0000') !== member.subscribedTopicNames.join('\u0000')) {
        member.subscribedTopicNames = subscribed;
        changed = true;
      }
    }
    this.touch(group, member);
    if (request.owned) {
      for (const [topic, partition] of entries(member.revoking))
        if (!has(request.owned, topic, partition)) remove(member.revoking, topic, partition);
    }
    const topicsSeen = this.subscribedTopics(group);
    if (topicsSeen !== group.topicsSeen) {
      group.topicsSeen = topicsSeen;
      changed = true;
    }
    if (changed) group.groupEpoch++;
    if (group.assignmentEpoch < group.groupEpoch) this.assign(group);
    this.reconcile(group, member);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      assignment: member.assigned,
    };
  }

  /** Whether an offset commit of this member at this epoch may be taken (OffsetCommit v9+). */
  validateCommit(groupId: string, memberEpoch: number, memberId: string): number {
    const group = this.groups.get(groupId);
    // An admin's commit, outside the group, as the classic protocol takes it: only to an empty group.
    if (memberEpoch < 0 && memberId === '')
      return !group || group.members.size === 0 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    const member = group?.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
  }

  close(): void {
    for (const group of this.groups.values())
      for (const member of group.members.values()) if (member.timer) this.clock.clearTimeout(member.timer);
  }

  /** The subscribed topics that exist, with their partition counts: a change needs a new target. */
  private subscribedTopics(group: ConsumerGroup): string {
    const topics = new Set([...group.members.values()].flatMap((member) => member.subscribedTopicNames));
    return [...topics]
      .sort()
      .map((topic) => `${topic}:${this.partitionsOf(topic) ?? 0}`)
      .join(',');
  }

  /** The uniform assignor: each topic's partitions dealt in turn to the members subscribed to it. */
  private assign(group: ConsumerGroup): void {
    const members = [...group.members.values()].sort((a, b) => a.memberId.localeCompare(b.memberId));
    const target = new Map<string, Assignment>(members.map((member) => [member.memberId, new Map()]));
    let turn = 0;
    const topics = [...new Set(members.flatMap((member) => member.subscribedTopicNames))].sort();
    for (const topic of topics) {
      const subscribers = members.filter((member) => member.subscribedTopicNames.includes(topic));
      const partitions = this.partitionsOf(topic) ?? 0;
      for (let partition = 0; partition < partitions; partition++, turn++)
        add(target.get(subscribers[turn % subscribers.length]!.memberId)!, topic, partition);
    }
    group.target = target;
    group.assignmentEpoch = group.groupEpoch;
  }

  /**
   * Moves the member toward its target: what the target took away is revoked first; once the
   * member has released everything it must, it gets the target's partitions no one else holds
   * and the assignment epoch.
   */
  private reconcile(group: ConsumerGroup, member: ConsumerMember): void {
    const target = group.target.get(member.memberId) ?? new Map<string, number[]>();
    for (const [topic, partition] of entries(member.assigned)) {
      if (has(target, topic, partition)) continue;
      remove(member.assigned, topic, partition);
      add(member.revoking, topic, partition);
    }
    if (member.revoking.size > 0) return;
    const others = [...group.members.values()].filter((other) => other !== member);
    for (const [topic, partition] of entries(target)) {
      if (has(member.assigned, topic, partition)) continue;
      const held = others.some(
        (other) => has(other.assigned, topic, partition) || has(other.revoking, topic, partition),
      );
      if (!held) add(member.assigned, topic, partition);
    }
    member.memberEpoch = group.assignmentEpoch;
  }

  /** Restarts the member's session: it leaves the group unless heard from within the timeout. */
  private touch(group: ConsumerGroup, member: ConsumerMember): void {
    if (member.timer) this.clock.clearTimeout(member.timer);
    member.timer = this.clock.setTimeout(() => {
      if (group.members.get(member.memberId) === member) this.removeMember(group, member);
    }, this.sessionTimeoutMs);
  }

  private removeMember(group: ConsumerGroup, member: ConsumerMember): void {
    if (member.timer) this.clock.clearTimeout(member.timer);
    group.members.delete(member.memberId);
    group.target.delete(member.memberId);
    group.groupEpoch++;
  }
}
