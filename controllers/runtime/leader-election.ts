import type { Logger } from '../../observability/logger.js';
import { systemClock, type Clock, type TimerHandle } from '../../observability/clock.js';
import {
  apiVersionOf,
  isStoreError,
  type KubeObject,
  type ObjectStore,
  type ResourceType,
} from '../../control-plane/types.js';

/** The spec of a `coordination.k8s.io/v1` Lease, as leader election reads and writes it. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with six fractional digits. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type Lease = KubeObject<LeaseSpec>;

export interface LeaderElectionOptions {
  store: ObjectStore;
  /** The Lease kind as the store serves it (`coordination.k8s.io/v1`, `leases`). */
  leaseType: ResourceType;
  namespace: string;
  name: string;
  /** This candidate, unique among all of them: the pod name. */
  identity: string;
  clock?: Clock;
  logger: Logger;
  /** How long a lease holds without renewal; others take over after it. Default 15. */
  leaseDurationSeconds?: number;
  /** A leader that has not renewed for this long stops leading. Default 10 s. */
  renewDeadlineMs?: number;
  /** How often the leader renews and the others try to acquire. Default 2 s. */
  retryPeriodMs?: number;
  /** Called on becoming leader: start the work only one replica may do. */
  onStartedLeading(): Promise<void>;
  /** Called on ceasing to lead (deadline missed, lease lost, or stop): stop that work. */
  onStoppedLeading(): Promise<void>;
}

export interface LeaderElection {
  /** Stops leading (awaiting `onStoppedLeading`), then releases the lease so another takes over at once. */
  stop(): Promise<void>;
  isLeader(): boolean;
}

type Attempt = { held: true; renewedAt: number } | { held: false; holder?: string; expiresAt?: number };

/** Kubernetes MicroTime: Go parses exactly six fractional digits. */
function microTime(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

/**
 * Leader election on a Lease with client-go's semantics, through the `ObjectStore`, so it runs
 * the same on a cluster and on the embedded store:
 *
 * - acquire when the lease is absent, released (no holder) or expired (`renewTime +
 *   leaseDurationSeconds` has passed by this candidate's clock: clocks are assumed to agree to
 *   well within the lease duration);
 * - every write carries the resourceVersion read, so of two candidates racing only one wins
 *   (409 for the other);
 * - the leader renews every retry period and stops leading when it has not renewed within the
 *   renew deadline (shorter than the lease duration, so it stops before anyone may take over),
 *   or at once when it finds the lease held by another;
 * - `stop()` stops the work first, then clears `holderIdentity`, so a successor need not wait
 *   for expiry.
 *
 * Unlike client-go, a candidate waiting on a lease held by another wakes when that lease
 * expires rather than at its next retry: takeover comes within the lease duration of the last
 * renewal.
 */
export function runWithLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const elector = new LeaderElector(options);
  elector.start();
  return elector;
}

class LeaderElector implements LeaderElection {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private stopped = false;
  /** Moves on whenever leadership ends, so an answer to an attempt made before cannot restore it. */
  private epoch = 0;
  private retryTimer: TimerHandle | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private attempting: Promise<void> = Promise.resolve();
  private starting: Promise<void> = Promise.resolve();
  private stepping: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.clock = options.clock ?? systemClock;
    this.leaseDurationMs = (options.leaseDurationSeconds ?? 15) * 1000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.retryPeriodMs > 0 && this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new Error(
        'leader election: the retry period must be positive and shorter than the renew deadline',
      );
    }
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) {
      throw new Error('leader election: the renew deadline must be shorter than the lease duration');
    }
    this.logger = options.logger.child({
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
  }

  start(): void {
    this.schedule(0);
  }

  isLeader(): boolean {
    return this.leading;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
      await this.attempting;
      await this.stepDown('stopping');
      await this.release();
    })();
    return this.stopping;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.attempting = this.attempt();
    }, delayMs);
  }

  private async attempt(): Promise<void> {
    await this.stepping;
    if (this.stopped) return;
    const epoch = this.epoch;
    let nextMs = this.retryPeriodMs;
    try {
      const outcome = await this.acquireOrRenew();
      if (this.stopped || epoch !== this.epoch) return;
      if (outcome.held) {
        this.held(outcome.renewedAt);
      } else {
        if (this.leading && outcome.holder !== undefined && outcome.holder !== this.options.identity) {
          void this.stepDown(`the lease is now held by ${outcome.holder}`);
        }
        if (outcome.expiresAt !== undefined) {
          const untilExpiry = outcome.expiresAt - this.clock.now().getTime() + 1;
          nextMs = Math.min(this.retryPeriodMs, Math.max(1, untilExpiry));
        }
      }
    } catch (error) {
      // While leading, the renew deadline decides when failures have lasted too long.
      this.logger.warn({ err: error, leading: this.leading }, 'leader election: lease request failed');
    } finally {
      this.schedule(nextMs);
    }
  }

  private async acquireOrRenew(): Promise<Attempt> {
    const { store, leaseType, namespace, name, identity } = this.options;
    const now = this.clock.now();
    let lease: Lease;
    try {
      lease = await store.get<Lease>(leaseType, namespace, name);
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
      try {
        await store.create<Lease>(leaseType, {
          apiVersion: apiVersionOf(leaseType),
          kind: leaseType.kind,
          metadata: { name, namespace },
          spec: this.heldSpec(undefined, now),
        });
        return { held: true, renewedAt: now.getTime() };
      } catch (createError) {
        if (isStoreError(createError, 'AlreadyExists')) return { held: false };
        throw createError;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity || undefined;
    if (holder !== identity && holder !== undefined) {
      const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
      const expiresAt = renewedAt + (spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
      if (Number.isFinite(expiresAt) && now.getTime() <= expiresAt) return { held: false, holder, expiresAt };
    }
    try {
      await store.update<Lease>(leaseType, { ...lease, spec: this.heldSpec(spec, now) });
    } catch (error) {
      if (isStoreError(error, 'Conflict')) return { held: false };
      throw error;
    }
    if (holder !== identity) {
      this.logger.info({ previousHolder: holder ?? null }, 'leader election: acquired the lease');
    }
    return { held: true, renewedAt: now.getTime() };
  }

  /**
   * The spec that makes this candidate the holder of `previous` (undefined: a new lease). Taking
   * over from anyone else, a released lease included, counts a transition, as in client-go.
   */
  private heldSpec(previous: LeaseSpec | undefined, now: Date): LeaseSpec {
    const renewing = previous?.holderIdentity === this.options.identity;
    const transitions = previous?.leaseTransitions ?? 0;
    return {
      ...previous,
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      acquireTime: renewing ? (previous?.acquireTime ?? microTime(now)) : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: previous === undefined || renewing ? transitions : transitions + 1,
    };
  }

  private held(renewedAt: number): void {
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    const remaining = renewedAt + this.renewDeadlineMs - this.clock.now().getTime();
    this.deadlineTimer = this.clock.setTimeout(
      () => void this.stepDown('the lease was not renewed within the renew deadline'),
      Math.max(0, remaining),
    );
    if (this.leading) return;
    this.leading = true;
    this.logger.info('leader election: started leading');
    const epoch = this.epoch;
    this.starting = this.options.onStartedLeading().catch((error: unknown) => {
      this.logger.error({ err: error }, 'leader election: starting to lead failed; giving the lease up');
      if (epoch === this.epoch) void this.stepDown('starting to lead failed').then(() => this.release());
    });
  }

  private stepDown(reason: string): Promise<void> {
    if (!this.leading) return this.stepping;
    this.leading = false;
    this.epoch += 1;
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const log =
      reason === 'stopping' ? this.logger.info.bind(this.logger) : this.logger.warn.bind(this.logger);
    log({ reason }, 'leader election: stopped leading');
    const starting = this.starting;
    this.stepping = (async () => {
      await starting;
      try {
        await this.options.onStoppedLeading();
      } catch (error) {
        this.logger.error({ err: error }, 'leader election: stopping the work failed');
      }
    })();
    return this.stepping;
  }

  /** Clears `holderIdentity` when this candidate holds the lease; a failure leaves it to expire. */
  private async release(): Promise<void> {
    const { store, leaseType, namespace, name, identity } = this.options;
    try {
      const lease = await store.get<Lease>(leaseType, namespace, name);
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime(this.clock.now());
      const { holderIdentity: _released, ...rest } = lease.spec;
      await store.update<Lease>(leaseType, {
        ...lease,
        spec: { ...rest, leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
      });
      this.logger.info('leader election: released the lease');
    } catch (error) {
      if (isStoreError(error, 'NotFound')) return;
      this.logger.warn({ err: error }, 'leader election: could not release the lease; it will expire');
    }
  }
}
