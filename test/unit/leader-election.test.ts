import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_KIND } from '../../control-plane/built-in-kinds.js';
import {
  runWithLeaderElection,
  type Lease,
  type LeaderElection,
  type LeaderElectionOptions,
} from '../../controllers/runtime/leader-election.js';
import type { EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import {
  aLease,
  LEASE_NAME,
  LEASE_NAMESPACE,
  microTime,
  openLeaseStore,
} from '../fixtures/kube-backend-leases.js';

const START = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(START.getTime() + ms);

interface Candidate {
  election: LeaderElection;
  /** What the candidate was told, in order: `started` and `stopped`. */
  calls: string[];
}

describe('leader election on a Lease', () => {
  let store: EmbeddedStore;
  let remove: () => Promise<void>;
  let clock: FakeClock;
  const running: LeaderElection[] = [];

  beforeEach(() => {
    ({ store, remove } = openLeaseStore());
    clock = new FakeClock(START);
  });

  afterEach(async () => {
    for (const election of running.splice(0)) await election.stop();
    await remove();
  });

  function candidate(identity: string, overrides: Partial<LeaderElectionOptions> = {}): Candidate {
    const calls: string[] = [];
    const election = runWithLeaderElection({
      store,
      leaseType: LEASE_KIND,
      namespace: LEASE_NAMESPACE,
      name: LEASE_NAME,
      identity,
      clock,
      logger: capturedLogger().logger,
      onStartedLeading: async () => void calls.push('started'),
      onStoppedLeading: async () => void calls.push('stopped'),
      ...overrides,
    });
    running.push(election);
    return { election, calls };
  }

  const lease = () => store.get<Lease>(LEASE_KIND, LEASE_NAMESPACE, LEASE_NAME);

  describe('acquiring', () => {
    it('creates an absent lease holding it for 15 s, with acquire and renew times in MicroTime', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      expect(a.election.isLeader()).toBe(true);
      expect(a.calls).toEqual(['started']);
      expect((await lease()).spec).toEqual({
        holderIdentity: 'operator-a',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-01T00:00:00.000000Z',
        renewTime: '2026-01-01T00:00:00.000000Z',
        leaseTransitions: 0,
      });
    });

    it('takes a released lease at once, counting a transition', async () => {
      await store.create(
        LEASE_KIND,
        aLease({ leaseDurationSeconds: 1, renewTime: microTime(START), leaseTransitions: 3 }),
      );
      const a = candidate('operator-a');
      await clock.advance(0);
      expect(a.election.isLeader()).toBe(true);
      expect((await lease()).spec).toMatchObject({ holderIdentity: 'operator-a', leaseTransitions: 4 });
    });

    it('waits while another holds the lease and takes over the moment it expires', async () => {
      await store.create(
        LEASE_KIND,
        aLease({
          holderIdentity: 'operator-gone',
          leaseDurationSeconds: 15,
          acquireTime: microTime(START),
          renewTime: microTime(START),
          leaseTransitions: 1,
        }),
      );
      const b = candidate('operator-b');
      await clock.advance(15_000);
      expect(b.election.isLeader()).toBe(false);
      expect(b.calls).toEqual([]);
      await clock.advance(1);
      expect(b.election.isLeader()).toBe(true);
      expect((await lease()).spec).toEqual({
        holderIdentity: 'operator-b',
        leaseDurationSeconds: 15,
        acquireTime: microTime(at(15_001)),
        renewTime: microTime(at(15_001)),
        leaseTransitions: 2,
      });
    });

    it('takes over a lease whose holder never wrote a renew time', async () => {
      await store.create(LEASE_KIND, aLease({ holderIdentity: 'operator-odd' }));
      const b = candidate('operator-b');
      await clock.advance(0);
      expect(b.election.isLeader()).toBe(true);
    });

    it('of two candidates racing for an expired lease, exactly one wins and the other stands by', async () => {
      await store.create(
        LEASE_KIND,
        aLease({ holderIdentity: 'operator-gone', renewTime: microTime(at(-60_000)) }),
      );
      const clockA = new FakeClock(START);
      const clockB = new FakeClock(START);
      const a = candidate('operator-a', { clock: clockA });
      const b = candidate('operator-b', { clock: clockB });
      await Promise.all([clockA.advance(0), clockB.advance(0)]);
      const leaders = [a, b].filter((entry) => entry.election.isLeader());
      expect(leaders).toHaveLength(1);
      expect((await lease()).spec?.leaseTransitions).toBe(1);
      await Promise.all([clockA.advance(4_000), clockB.advance(4_000)]);
      expect([a, b].filter((entry) => entry.election.isLeader())).toEqual(leaders);
    });
  });

  describe('renewing', () => {
    it('renews every 2 s, keeping acquireTime and the transition count', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      await clock.advance(2_000);
      expect((await lease()).spec).toMatchObject({
        holderIdentity: 'operator-a',
        acquireTime: microTime(START),
        renewTime: microTime(at(2_000)),
        leaseTransitions: 0,
      });
      await clock.advance(60_000);
      expect(a.election.isLeader()).toBe(true);
      expect(a.calls).toEqual(['started']);
      expect((await lease()).spec?.renewTime).toBe(microTime(at(62_000)));
    });

    it('keeps a standby from taking over while the leader renews', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      const b = candidate('operator-b');
      await clock.advance(120_000);
      expect(a.election.isLeader()).toBe(true);
      expect(b.election.isLeader()).toBe(false);
    });
  });

  describe('losing the lease', () => {
    it('stops leading at once when it finds the lease held by another', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      const current = await lease();
      await store.update(LEASE_KIND, {
        ...current,
        spec: { ...current.spec, holderIdentity: 'operator-intruder' },
      });
      await clock.advance(2_000);
      expect(a.election.isLeader()).toBe(false);
      expect(a.calls).toEqual(['started', 'stopped']);
    });

    it('stops leading when it cannot renew within the 10 s renew deadline, before the lease could expire', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      await clock.advance(4_000);
      await store.close();
      await clock.advance(9_999);
      expect(a.election.isLeader()).toBe(true);
      await clock.advance(1);
      expect(a.election.isLeader()).toBe(false);
      expect(a.calls).toEqual(['started', 'stopped']);
    });

    it('gives the lease up when starting to lead fails, so another can take it', async () => {
      const a = candidate('operator-a', {
        onStartedLeading: () => Promise.reject(new Error('controllers would not start')),
      });
      await clock.advance(0);
      expect(a.election.isLeader()).toBe(false);
      expect((await lease()).spec?.holderIdentity).toBeUndefined();
    });
  });

  describe('stopping', () => {
    it('stops the work first, then clears the holder so a standby takes over without waiting for expiry', async () => {
      let holderWhenStopped: string | undefined;
      const a = candidate('operator-a', {
        onStoppedLeading: async () => {
          holderWhenStopped = (await lease()).spec?.holderIdentity;
        },
      });
      await clock.advance(0);
      const b = candidate('operator-b');
      await clock.advance(1_000);
      await a.election.stop();
      expect(holderWhenStopped).toBe('operator-a');
      expect(a.election.isLeader()).toBe(false);
      expect((await lease()).spec).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 0 });
      expect((await lease()).spec?.holderIdentity).toBeUndefined();
      await clock.advance(2_000);
      expect(b.election.isLeader()).toBe(true);
      expect((await lease()).spec).toMatchObject({ holderIdentity: 'operator-b', leaseTransitions: 1 });
    });

    it('leaves a lease held by another untouched when a standby stops', async () => {
      const a = candidate('operator-a');
      await clock.advance(0);
      const b = candidate('operator-b');
      await clock.advance(0);
      const before = await lease();
      await b.election.stop();
      expect(await lease()).toEqual(before);
      expect(a.election.isLeader()).toBe(true);
    });
  });

  it.each([
    ['a renew deadline as long as the lease', { leaseDurationSeconds: 10, renewDeadlineMs: 10_000 }],
    ['a retry period as long as the renew deadline', { renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }],
    ['a retry period of zero', { retryPeriodMs: 0 }],
  ])('refuses %s', (_case, timings) => {
    expect(() => candidate('operator-a', timings)).toThrow(/leader election: the/);
  });
});
