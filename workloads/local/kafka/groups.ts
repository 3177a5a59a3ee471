import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../../../observability/clock.js';
import { ErrorCode } from './errors.js';

/**
 * Classic consumer groups (the JoinGroup/SyncGroup protocol): members join, the coordinator
 * waits for every known member (up to the rebalance timeout), picks a leader and a protocol,
 * the leader's assignment is handed out in SyncGroup. Generations fence members that missed a
 * rebalance; a member that stops heartbeating is removed after its session timeout.
 */

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export interface JoinRequest {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: { name: string; metadata: Buffer }[];
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolName: string;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  assignment: Buffer;
}

export interface Member {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: { name: string; metadata: Buffer }[];
  assignment: Buffer;
  joinWaiter?: (result: JoinResult) => void;
  syncWaiter?: (result: SyncResult) => void;
  sessionTimer?: TimerHandle;
}

export interface Group {
  groupId: string;
  state: GroupState;
  generationId: number;
  protocolType: string;
  protocolName: string;
  leaderId: string;
  members: Map<string, Member>;
  rebalanceTimer?: TimerHandle;
}

const EMPTY = Buffer.alloc(0);
export const MIN_SESSION_TIMEOUT_MS = 100;
export const MAX_SESSION_TIMEOUT_MS = 1_800_000;

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly clock: Clock) {}

  group(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  list(): Group[] {
    return [...this.groups.values()].filter((group) => group.state !== 'Dead');
  }

  join(request: JoinRequest): Promise<JoinResult> {
    const failed = (errorCode: number): Promise<JoinResult> =>
      Promise.resolve({
        errorCode,
        generationId: -1,
        protocolName: '',
        leader: '',
        memberId: request.memberId,
        members: [],
      });
    if (
      request.sessionTimeoutMs < MIN_SESSION_TIMEOUT_MS ||
      request.sessionTimeoutMs > MAX_SESSION_TIMEOUT_MS
    ) {
      return failed(ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    let group = this.groups.get(request.groupId);
    if (!group || group.state === 'Dead') {
      group = {
        groupId: request.groupId,
        state: 'Empty',
        generationId: 0,
        protocolType: request.protocolType,
        protocolName: '',
        leaderId: '',
        members: new Map(),
      };
      this.groups.set(request.groupId, group);
    }
    if (group.members.size > 0) {
      const common = this.commonProtocols(group, request.protocols);
      if (group.protocolType !== request.protocolType || common.length === 0) {
        return failed(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      }
    } else group.protocolType = request.protocolType;
    let member: Member | undefined;
    if (request.memberId === '') {
      member = {
        memberId: `${request.clientId || 'member'}-${randomUUID()}`,
        groupInstanceId: request.groupInstanceId,
        clientId: request.clientId,
        clientHost: request.clientHost,
        sessionTimeoutMs: request.sessionTimeoutMs,
        rebalanceTimeoutMs: request.rebalanceTimeoutMs,
        protocols: request.protocols,
        assignment: EMPTY,
      };
      group.members.set(member.memberId, member);
    } else {
      member = group.members.get(request.memberId);
      if (!member) return failed(ErrorCode.UNKNOWN_MEMBER_ID);
      member.protocols = request.protocols;
      member.sessionTimeoutMs = request.sessionTimeoutMs;
      member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    }
    const joining = member;
    const answer = new Promise<JoinResult>((resolve) => {
      // A member joining twice answers its earlier join as superseded.
      joining.joinWaiter?.({
        errorCode: ErrorCode.REBALANCE_IN_PROGRESS,
        generationId: -1,
        protocolName: '',
        leader: '',
        memberId: joining.memberId,
        members: [],
      });
      joining.joinWaiter = resolve;
    });
    if (joining.sessionTimer) this.clock.clearTimeout(joining.sessionTimer);
    joining.sessionTimer = undefined;
    if (group.state !== 'PreparingRebalance') this.prepareRebalance(group);
    this.completeJoinIfReady(group);
    return answer;
  }

  sync(
    groupId: string,
    generationId: number,
    memberId: string,
    assignments: { memberId: string; assignment: Buffer }[],
  ): Promise<SyncResult> {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member)
      return Promise.resolve({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: EMPTY });
    if (generationId !== group.generationId)
      return Promise.resolve({ errorCode: ErrorCode.ILLEGAL_GENERATION, assignment: EMPTY });
    this.touch(group, member);
    if (group.state === 'PreparingRebalance')
      return Promise.resolve({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: EMPTY });
    if (group.state === 'Stable')
      return Promise.resolve({ errorCode: ErrorCode.NONE, assignment: member.assignment });
    const answer = new Promise<SyncResult>((resolve) => {
      member.syncWaiter = resolve;
    });
    if (memberId === group.leaderId) {
      const given = new Map(assignments.map((entry) => [entry.memberId, entry.assignment]));
      group.state = 'Stable';
      for (const each of group.members.values()) {
        each.assignment = given.get(each.memberId) ?? EMPTY;
        const waiter = each.syncWaiter;
        each.syncWaiter = undefined;
        waiter?.({ errorCode: ErrorCode.NONE, assignment: each.assignment });
      }
    }
    return answer;
  }

  heartbeat(groupId: string, generationId: number, memberId: string): number {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.state === 'PreparingRebalance') {
      this.touch(group, member);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    }
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.touch(group, member);
    return ErrorCode.NONE;
  }

  leave(groupId: string, memberId: string): number {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.removeMember(group, member, ErrorCode.UNKNOWN_MEMBER_ID);
    return ErrorCode.NONE;
  }

  /** Whether an offset commit with this generation and member may be taken (Kafka's checks). */
  validateCommit(groupId: string, generationId: number, memberId: string): number {
    const group = this.groups.get(groupId);
    if (generationId < 0 && memberId === '') {
      return !group || group.members.size === 0 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    }
    const member = group?.members.get(memberId);
    if (!group || !member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (group.state === 'CompletingRebalance') return ErrorCode.REBALANCE_IN_PROGRESS;
    this.touch(group, member);
    return ErrorCode.NONE;
  }

  /** Removes an empty group; NON_EMPTY_GROUP while it has members. */
  delete(groupId: string): number {
    const group = this.groups.get(groupId);
    if (!group) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (group.members.size > 0) return ErrorCode.NON_EMPTY_GROUP;
    group.state = 'Dead';
    this.groups.delete(groupId);
    return ErrorCode.NONE;
  }

  /** Stops every timer (the broker is closing). */
  close(): void {
    for (const group of this.groups.values()) {
      if (group.rebalanceTimer) this.clock.clearTimeout(group.rebalanceTimer);
      for (const member of group.members.values())
        if (member.sessionTimer) this.clock.clearTimeout(member.sessionTimer);
    }
  }

  private commonProtocols(group: Group, offered: { name: string }[]): string[] {
    return offered
      .map((protocol) => protocol.name)
      .filter((name) =>
        [...group.members.values()].every((member) => member.protocols.some((own) => own.name === name)),
      );
  }

  private prepareRebalance(group: Group): void {
    group.state = 'PreparingRebalance';
    for (const member of group.members.values()) {
      const waiter = member.syncWaiter;
      member.syncWaiter = undefined;
      waiter?.({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: EMPTY });
    }
    const timeout = Math.max(0, ...[...group.members.values()].map((member) => member.rebalanceTimeoutMs));
    if (group.rebalanceTimer) this.clock.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = this.clock.setTimeout(() => {
      group.rebalanceTimer = undefined;
      this.completeJoin(group);
    }, timeout);
  }

  private completeJoinIfReady(group: Group): void {
    if (group.state !== 'PreparingRebalance') return;
    if ([...group.members.values()].every((member) => member.joinWaiter)) this.completeJoin(group);
  }

  /** Ends the join phase: members that did not rejoin are dropped, the rest get the new generation. */
  private completeJoin(group: Group): void {
    if (group.state !== 'PreparingRebalance') return;
    if (group.rebalanceTimer) this.clock.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = undefined;
    for (const member of [...group.members.values()]) {
      if (!member.joinWaiter) {
        if (member.sessionTimer) this.clock.clearTimeout(member.sessionTimer);
        group.members.delete(member.memberId);
      }
    }
    group.generationId += 1;
    if (group.members.size === 0) {
      group.state = 'Empty';
      group.leaderId = '';
      group.protocolName = '';
      return;
    }
    group.protocolName = this.chooseProtocol(group);
    if (!group.members.has(group.leaderId)) group.leaderId = group.members.keys().next().value ?? '';
    group.state = 'CompletingRebalance';
    const everyone = [...group.members.values()].map((member) => ({
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      metadata: member.protocols.find((protocol) => protocol.name === group.protocolName)?.metadata ?? EMPTY,
    }));
    for (const member of group.members.values()) {
      const waiter = member.joinWaiter;
      member.joinWaiter = undefined;
      this.touch(group, member);
      waiter?.({
        errorCode: ErrorCode.NONE,
        generationId: group.generationId,
        protocolName: group.protocolName,
        leader: group.leaderId,
        memberId: member.memberId,
        members: member.memberId === group.leaderId ? everyone : [],
      });
    }
  }

  /** Each member votes for its most preferred protocol all members support; most votes wins. */
  private chooseProtocol(group: Group): string {
    const members = [...group.members.values()];
    const candidates = (members[0]?.protocols ?? [])
      .map((protocol) => protocol.name)
      .filter((name) => members.every((member) => member.protocols.some((own) => own.name === name)));
    const votes = new Map<string, number>();
    for (const member of members) {
      const choice = member.protocols.find((protocol) => candidates.includes(protocol.name))?.name;
      if (choice) votes.set(choice, (votes.get(choice) ?? 0) + 1);
    }
    return [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? candidates[0] ?? '';
  }

  /** Restarts the member's session: it expires unless heard from within its session timeout. */
  private touch(group: Group, member: Member): void {
    if (member.sessionTimer) this.clock.clearTimeout(member.sessionTimer);
    member.sessionTimer = this.clock.setTimeout(() => {
      member.sessionTimer = undefined;
      if (group.members.get(member.memberId) === member && !member.joinWaiter) {
        this.removeMember(group, member, ErrorCode.UNKNOWN_MEMBER_ID);
      }
    }, member.sessionTimeoutMs);
  }

  private removeMember(group: Group, member: Member, errorCode: number): void {
    if (member.sessionTimer) this.clock.clearTimeout(member.sessionTimer);
    group.members.delete(member.memberId);
    member.joinWaiter?.({
      errorCode,
      generationId: -1,
      protocolName: '',
      leader: '',
      memberId: member.memberId,
      members: [],
    });
    member.syncWaiter?.({ errorCode, assignment: EMPTY });
    if (group.state === 'PreparingRebalance') {
      if (group.members.size === 0) this.completeJoin(group);
      else this.completeJoinIfReady(group);
      return;
    }
    if (group.members.size === 0) {
      group.state = 'Empty';
      group.leaderId = '';
      group.generationId += 1;
      return;
    }
    this.prepareRebalance(group);
  }
}
