import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import type { Clock } from './clock.js';
import type { Informer } from '../../control-plane/informer.js';
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

/** Reads served from the shared informer caches; each object returned is a copy. */
export interface CacheReader {
  get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string): T | undefined;
  list<T extends KubeObject>(type: ResourceType, namespace?: string): T[];
}

export interface ReconcileContext {
  store: ObjectStore;
  cache: CacheReader;
  database: DataPlane | undefined;
  clock: Clock;
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
  /** Which objects of the controller's kind care about this object. */
  map(object: KubeObject): ReconcileRequest[];
}

/** What a controller is, in controller-runtime's builder terms: For(kind).Owns(children). */
export interface ControllerDefinition {
  name: string;
  for: ResourceType;
  /** Kinds whose objects carry a controller ownerReference to ours. */
  owns?: ResourceType[];
  watches?: WatchedKind[];
  reconcile: Reconciler;
  /** Reconciles of different objects running at once. Default 2. */
  concurrency?: number;
  /** Every object is reconciled at least this often. Default 10 minutes. */
  resyncPeriodMs?: number;
  backoff?: BackoffPolicy;
}

export type InformerProvider = (type: ResourceType) => Informer;
