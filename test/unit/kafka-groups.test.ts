import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../workloads/local/kafka/errors.js';
import { GroupCoordinator, type JoinRequest } from '../../workloads/local/kafka/groups.js';
import { FakeClock } from '../fixtures/fake-clock.js';

function joining(memberId = '', overrides: Partial<JoinRequest> = {}): JoinRequest {
  return {
    groupId: 'g',
    memberId,
    groupInstanceId: null,
    clientId: 'client',
    clientHost: '127.0.0.1',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from('m') }],
    ...overrides,
  };
}

describe('the classic group coordinator', () => {
  it('makes a lone member the leader of generation 1 and hands it its own assignment', async () => {
    const groups = new GroupCoordinator(new FakeClock());
    const joined = await groups.join(joining());
    expect(joined).toMatchObject({
      errorCode: 0,
      generationId: 1,
      protocolName: 'range',
      leader: joined.memberId,
    });
    expect(joined.members).toHaveLength(1);
    const synced = await groups.sync('g', 1, joined.memberId, [
      { memberId: joined.memberId, assignment: Buffer.from('A') },
    ]);
    expect(synced).toEqual({ errorCode: 0, assignment: Buffer.from('A') });
    expect(groups.group('g')?.state).toBe('Stable');
  });

  it('rebalances when a second member joins: the first learns by heartbeat, rejoins, both get generation 2', async () => {
    const clock = new FakeClock();
    const groups = new GroupCoordinator(clock);
    const first = await groups.join(joining());
    await groups.sync('g', 1, first.memberId, []);
    const secondJoin = groups.join(joining());
    expect(groups.heartbeat('g', 1, first.memberId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const firstAgain = await groups.join(joining(first.memberId));
    const second = await secondJoin;
    expect([firstAgain.generationId, second.generationId]).toEqual([2, 2]);
    expect(firstAgain.members).toHaveLength(2);
    expect(second.members).toEqual([]);
    const followerSync = groups.sync('g', 2, second.memberId, []);
    await groups.sync('g', 2, first.memberId, [
      { memberId: first.memberId, assignment: Buffer.from('0,1') },
      { memberId: second.memberId, assignment: Buffer.from('2,3') },
    ]);
    expect((await followerSync).assignment.toString()).toBe('2,3');
  });

  it.each([
    ['an old generation', 0, true, ErrorCode.ILLEGAL_GENERATION],
    ['an unknown member', 1, false, ErrorCode.UNKNOWN_MEMBER_ID],
  ])('fences a heartbeat from %s', async (_case, generation, known, expected) => {
    const groups = new GroupCoordinator(new FakeClock());
    const joined = await groups.join(joining());
    await groups.sync('g', 1, joined.memberId, []);
    expect(groups.heartbeat('g', generation, known ? joined.memberId : 'stranger')).toBe(expected);
  });

  it('drops a member that misses the rebalance timeout, and one whose session expires', async () => {
    const clock = new FakeClock();
    const groups = new GroupCoordinator(clock);
    const first = await groups.join(joining('', { sessionTimeoutMs: 60_000 }));
    await groups.sync('g', 1, first.memberId, []);
    const secondJoin = groups.join(joining());
    await clock.advance(30_000);
    const second = await secondJoin;
    expect(second).toMatchObject({ errorCode: 0, generationId: 2, leader: second.memberId });
    expect([...groups.group('g')!.members.keys()]).toEqual([second.memberId]);
    await groups.sync('g', 2, second.memberId, []);
    await clock.advance(10_001);
    expect(groups.group('g')?.state).toBe('Empty');
    expect(groups.heartbeat('g', 2, second.memberId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('checks commits: generation and member, or -1 and none for an empty group', async () => {
    const groups = new GroupCoordinator(new FakeClock());
    expect(groups.validateCommit('g', -1, '')).toBe(ErrorCode.NONE);
    const joined = await groups.join(joining());
    expect(groups.validateCommit('g', 1, joined.memberId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await groups.sync('g', 1, joined.memberId, []);
    expect(groups.validateCommit('g', 1, joined.memberId)).toBe(ErrorCode.NONE);
    expect(groups.validateCommit('g', 0, joined.memberId)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(groups.validateCommit('g', -1, '')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('refuses a member whose protocols share nothing with the group', async () => {
    const groups = new GroupCoordinator(new FakeClock());
    await groups.join(joining());
    const other = await groups.join(
      joining('', { protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] }),
    );
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('empties on leave, then deletes; a group with members is NON_EMPTY_GROUP', async () => {
    const groups = new GroupCoordinator(new FakeClock());
    const joined = await groups.join(joining());
    expect(groups.delete('g')).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect(groups.leave('g', joined.memberId)).toBe(ErrorCode.NONE);
    expect(groups.group('g')?.state).toBe('Empty');
    expect(groups.delete('g')).toBe(ErrorCode.NONE);
    expect(groups.delete('g')).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
