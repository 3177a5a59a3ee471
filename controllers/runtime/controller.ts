import type { Logger } from '../../observability/logger.js';
import type { Clock } from '../../observability/clock.js';
import type { EventRecorder } from './event-recorder.js';
import type { KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';
import type { BackoffPolicy } from './work-queue.js';

export interface ReconcileRequest {
  namespace?: string;
  name: string;
}

export interface ReconcileResult {
  /** Reconcile again after this long even if nothing changes (polling something outside). */
  requeueAfterMs?: number;
}

/**
 * Reads served from the shared informer caches; each object returned is a copy. Only kinds a
 * controller declares (`for`, `owns`, `watches`, `reads`) are cached: reading another throws,
 * since an informer started late would answer from an empty cache.
 */
export interface CacheReader {
  get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string): T | undefined;
  list<T extends KubeObject>(type: ResourceType, namespace?: string): T[];
  /** The objects whose index `index` holds `value` (see `ControllerDefinition.indexes`). */
  byIndex<T extends KubeObject>(type: ResourceType, index: string, value: string): T[];
}

/**
 * A secondary key of a kind's cached objects, as client-go's indexers and controller-runtime's
 * field indexes: `keys` answers the values an object is found under.
 */
export interface CacheIndex {
  type: ResourceType;
  name: string;
  keys(object: KubeObject): string[];
}

export interface ReconcileContext {
  /** Writes, and reads that must see this reconcile's own writes. */
  store: ObjectStore;
  /** Reads: what the informers hold, current as of the event that woke this reconcile or later. */
  cache: CacheReader;
  clock: Clock;
  /**
   * Records Events about objects for `kubectl describe`. The runtime already records each
   * change of the reconciled object's `Ready` condition, terminal errors and failed reconciles;
   * a controller records what it alone knows (a child created, a password rotated).
   */
  events: EventRecorder;
  /** Carries kind, namespace, name, generation and reconcile_id on every line. */
  logger: Logger;
  reconcileId: string;
}

export type Reconciler = (
  request: ReconcileRequest,
  context: ReconcileContext,
) => Promise<ReconcileResult | void>;

/**
 * A failure that retrying cannot fix (an invalid spec, a resource the user must change). The
 * runtime records it on the object's `Ready` condition and stops retrying until the object
 * changes.
 */
export class TerminalError extends Error {
  constructor(
    /** PascalCase reason for the condition, e.g. `InvalidSpec`. */
    readonly reason: string,
    message: string,
    /** The kind's failure phase, written to `status.phase` when given. */
    readonly phase?: string,
  ) {
    super(message);
    this.name = 'TerminalError';
  }
}

/** A child kind whose changes wake the owning object's reconcile. */
export interface WatchedKind {
  type: ResourceType;
  /**
   * Which objects of the controller's kind care about this object; `cache` answers which exist
   * (every object of a namespace, say), as controller-runtime's map functions ask their client.
   */
  map(object: KubeObject, cache: CacheReader): ReconcileRequest[];
}

/**
 * Something outside the store whose events wake reconciles (controller-runtime's channel source):
 * called once when the controllers start with the function that queues a request and what the
 * cache holds; returns what stops it.
 */
export type EventSource = (enqueue: (request: ReconcileRequest) => void, cache: CacheReader) => () => void;

/** What a controller is, in controller-runtime's builder terms: For(kind).Owns(children). */
export interface ControllerDefinition {
  name: string;
  for: ResourceType;
  /** Kinds whose objects carry a controller ownerReference to ours. */
  owns?: ResourceType[];
  watches?: WatchedKind[];
  /** Events from outside the store (a runtime's) that wake reconciles. */
  sources?: EventSource[];
  /** Kinds read from the cache without their changes waking this controller. */
  reads?: ResourceType[];
  /** Secondary keys the cache keeps for lookups by something other than namespace and name. */
  indexes?: CacheIndex[];
  reconcile: Reconciler;
  /** Reconciles of different objects running at once. Default 2. */
  concurrency?: number;
  /** Every object is reconciled at least this often. Default 10 minutes. */
  resyncPeriodMs?: number;
  backoff?: BackoffPolicy;
}
