import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_KIND } from '../../control-plane/built-in-kinds.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import {
  runWithLeaderElection,
  type Lease,
  type LeaderElection,
} from '../../controllers/runtime/leader-election.js';
import type { EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { createMetrics } from '../../observability/metrics.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { eventually } from '../fixtures/eventually.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import { GADGET, GADGET_PART, gadget, gadgetController, type Gadget } from '../fixtures/gadget-controller.js';
import { LEASE_NAME, LEASE_NAMESPACE, openLeaseStore } from '../fixtures/kube-backend-leases.js';

/**
 * One operator replica: its own clock (its process's time), leader election on the shared store,
 * and a controller runner with the gadget controller that exists only while it leads.
 */
class OperatorReplica {
  readonly clock = new FakeClock();
  runner: ControllerRunner | undefined;
  readonly election: LeaderElection;

  constructor(
    readonly identity: string,
    store: EmbeddedStore,
  ) {
    const { logger } = capturedLogger();
    this.election = runWithLeaderElection({
      store,
      leaseType: LEASE_KIND,
      namespace: LEASE_NAMESPACE,
      name: LEASE_NAME,
      identity,
      clock: this.clock,
      logger,
      onStartedLeading: async () => {
        const runner = new ControllerRunner({
          store,
          logger,
          metrics: createMetrics({ processMetrics: false }),
          clock: this.clock,
        });
        runner.register(gadgetController());
        this.runner = runner;
        await runner.start();
      },
      onStoppedLeading: async () => {
        await this.runner?.stop();
        this.runner = undefined;
      },
    });
  }

  /** What a crash leaves behind: no more renewals (its time stops), no release, no work. */
  async crash(): Promise<void> {
    await this.runner?.stop();
    this.runner = undefined;
  }
}

describe('two operator replicas on one store', () => {
  let store: EmbeddedStore;
  let remove: () => Promise<void>;
  let first: OperatorReplica;
  let second: OperatorReplica;

  beforeEach(() => {
    ({ store, remove } = openLeaseStore([GADGET, GADGET_PART]));
  });

  afterEach(async () => {
    await second.election.stop();
    await first.election.stop();
    await remove();
  });

  const lease = () => store.get<Lease>(LEASE_KIND, LEASE_NAMESPACE, LEASE_NAME);
  const readyGeneration = async (name: string) =>
    (await store.get<Gadget>(GADGET, 'default', name)).status?.conditions?.find(
      (condition) => condition.type === 'Ready' && condition.status === 'True',
    )?.observedGeneration;

  it('the standby takes over within the lease duration of the crashed leader’s last renewal and reconciles new objects', async () => {
    first = new OperatorReplica('operator-a', store);
    await first.clock.advance(0);
    second = new OperatorReplica('operator-b', store);
    await second.clock.advance(0);
    expect(first.election.isLeader()).toBe(true);
    expect(second.election.isLeader()).toBe(false);

    await store.create(GADGET, gadget('before-crash', { parts: 1 }));
    await eventually(async () => expect(await readyGeneration('before-crash')).toBe(1));

    for (let step = 0; step < 3; step += 1) {
      await first.clock.advance(2_000);
      await second.clock.advance(2_000);
    }
    const lastRenewal = Date.parse((await lease()).spec?.renewTime ?? '');
    await first.crash();

    const sinceLastRenewal = () => second.clock.now().getTime() - lastRenewal;
    await second.clock.advance(15_000 - sinceLastRenewal());
    expect(second.election.isLeader()).toBe(false);
    await second.clock.advance(1);
    expect(second.election.isLeader()).toBe(true);
    expect(sinceLastRenewal()).toBe(15_001);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'operator-b', leaseTransitions: 1 });

    await store.create(GADGET, gadget('after-crash', { parts: 2 }));
    await eventually(async () => expect(await readyGeneration('after-crash')).toBe(1));
    const parts = await store.list(GADGET_PART, {
      namespace: 'default',
      labelSelector: 'gadget=after-crash',
    });
    expect(parts.items.map((part) => part.metadata.name).sort()).toEqual([
      'after-crash-part-0',
      'after-crash-part-1',
    ]);
    expect(second.runner).toBeDefined();
    expect(first.runner).toBeUndefined();
  });

  it('on a graceful stop the standby takes over at its next retry, long before the lease would expire', async () => {
    first = new OperatorReplica('operator-a', store);
    await first.clock.advance(0);
    second = new OperatorReplica('operator-b', store);
    await second.clock.advance(0);

    await first.election.stop();
    expect(first.runner).toBeUndefined();
    await second.clock.advance(2_000);
    expect(second.election.isLeader()).toBe(true);

    await store.create(GADGET, gadget('after-handover', { parts: 1 }));
    await eventually(async () => expect(await readyGeneration('after-handover')).toBe(1));
  });
});
