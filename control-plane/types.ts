/**
 * The Kubernetes resource model as the controllers and the facade see it. Two backends implement
 * `ObjectStore`: the embedded one on SQLite and the one on a real kube-apiserver. Both must pass
 * the contract suite in test/contract/, so code written against this interface cannot tell them
 * apart.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  /** On create without a name: the server appends a random suffix to this prefix. */
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  /** @asType integer */
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** @asType integer */
  observedGeneration?: number;
  /** @format date-time */
  lastTransitionTime: string;
}

export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
}

/** What a store needs to know about a kind to address it. */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface ListOptions {
  /** Omit for all namespaces. */
  namespace?: string;
  /** Kubernetes label selector syntax: `a=b,c!=d,e in (f,g),!h,i`. */
  labelSelector?: string;
  limit?: number;
  /** The opaque token a previous page returned. */
  continue?: string;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  items: T[];
  /** The store revision the list was read at: watch from here to miss nothing. */
  resourceVersion: string;
  /** Present when more items follow. */
  continue?: string;
}

export interface WriteOptions {
  /** Validate and answer as if written, write nothing (`dryRun=All`). */
  dryRun?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * `Background` (default): owned objects are removed after the owner is gone.
   * `Orphan`: owner references to it are dropped and the dependents kept.
   */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  /** Deliver every change after this revision. Omitted: changes from now on. */
  resourceVersion?: string;
  /** Deliver BOOKMARK events carrying the current revision while idle. */
  allowBookmarks?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/**
 * A stream of changes. Iterating throws a `StoreError` with reason `Expired` (410) when the
 * requested revision is older than the history kept: the caller relists.
 */
export interface Watch<T extends KubeObject = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  stop(): void;
}

export interface ObjectStore {
  get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string): Promise<T>;
  list<T extends KubeObject>(type: ResourceType, options?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): Promise<T>;
  /** Replaces spec, metadata and the rest but not status; 409 when `resourceVersion` is stale. */
  update<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): Promise<T>;
  /** Replaces status only (the status subresource); 409 when `resourceVersion` is stale. */
  updateStatus<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): Promise<T>;
  /** RFC 7386 JSON merge patch of the object, or of its status with `subresource: 'status'`. */
  patch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options?: WriteOptions & { subresource?: 'status' },
  ): Promise<T>;
  /**
   * Removes the object, or marks it with `deletionTimestamp` while finalizers remain. Answers
   * the object as it now is: marked, or as it was before removal.
   */
  delete<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): Promise<T>;
  watch<T extends KubeObject>(type: ResourceType, options?: WatchOptions): Watch<T>;
  /**
   * The revision of the last committed write, where the store knows it without a round trip
   * (the embedded store): it moves with every write, this process's at once and another's by the
   * next turn of the event loop, so an answer derived from reads taken at one revision holds while
   * the revision stays. Absent where asking would cost a request (a cluster's kube-apiserver).
   */
  currentResourceVersion?(): string;
  /** Cheap reachability check for /health. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type StoreErrorReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Expired'
  | 'Gone'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable';

const STATUS_CODES: Record<StoreErrorReason, number> = {
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Invalid: 422,
  BadRequest: 400,
  Expired: 410,
  Gone: 410,
  Forbidden: 403,
  Unauthorized: 401,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
};

export interface StoreErrorCause {
  field?: string;
  reason?: string;
  message: string;
}

/** The error both backends throw; it carries what a Kubernetes `Status` object carries. */
export class StoreError extends Error {
  readonly code: number;
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    readonly details: { kind?: string; name?: string; causes?: StoreErrorCause[] } = {},
  ) {
    super(message);
    this.name = 'StoreError';
    this.code = STATUS_CODES[reason];
  }
}

export function isStoreError(error: unknown, reason?: StoreErrorReason): error is StoreError {
  return error instanceof StoreError && (reason === undefined || error.reason === reason);
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}
