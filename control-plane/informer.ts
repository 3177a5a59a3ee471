import type { Logger } from '../observability/logger.js';
import type { KubeObject, ObjectStore, ResourceType, Watch } from './types.js';
import { isStoreError } from './types.js';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(object: T): void;
  onUpdate?(previous: T, current: T): void;
  onDelete?(object: T): void;
}

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  logger: Logger;
  /** Waits between reconnects; injected so tests do not sleep. */
  delay?: (ms: number) => Promise<void>;
  /** Reconnect backoff bounds (client-node's ListWatch uses 1 s to 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

const defaultDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const decode = <T>(entry: Entry): T => JSON.parse(entry.body) as T;

export function objectKey(object: Pick<KubeObject, 'metadata'>): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

interface Index<T> {
  keys(object: T): string[];
  /** Index value to the keys (namespace/name) of the objects found under it. */
  entries: Map<string, Set<string>>;
}

/**
 * A cached object, kept serialized: a JSON string takes a fraction of the memory of the object
 * graph, and every read hands out a copy anyway, which parsing makes as fast as cloning would.
 */
interface Entry {
  body: string;
  namespace: string | undefined;
  resourceVersion: string | undefined;
}

/**
 * A cache of one kind kept current by list-then-watch. On 410 Expired it relists and turns the
 * difference into events, so handlers never miss a change; on other failures it reconnects
 * with capped exponential backoff. Every object it hands out is a copy.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly cache = new Map<string, Entry>();
  private readonly indexes = new Map<string, Index<T>>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private resourceVersion: string | undefined;
  private currentWatch: Watch<T> | undefined;
  private stopped = false;
  private synced = false;
  private readonly syncWaiters: Array<() => void> = [];
  private readonly revisionWaiters = new Set<{ revision: bigint; resolve: () => void }>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: ObjectStore,
    readonly type: ResourceType,
    private readonly options: InformerOptions,
  ) {}

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.currentWatch?.stop();
    await this.running;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const entry = this.cache.get(namespace ? `${namespace}/${name}` : name);
    return entry && decode<T>(entry);
  }

  list(namespace?: string): T[] {
    const objects: T[] = [];
    for (const entry of this.cache.values()) {
      if (namespace === undefined || entry.namespace === namespace) objects.push(decode<T>(entry));
    }
    return objects;
  }

  keys(): string[] {
    return [...this.cache.keys()];
  }

  /**
   * Keeps the objects findable by `keys(object)` under `name` (client-go's indexer). Adding an
   * index of a name already present keeps the first: indexes are shared by every reader.
   */
  addIndex(name: string, keys: (object: T) => string[]): void {
    if (this.indexes.has(name)) return;
    const index: Index<T> = { keys, entries: new Map() };
    this.indexes.set(name, index);
    for (const [key, entry] of this.cache) this.indexAdd(index, key, decode<T>(entry));
  }

  /** Copies of the objects the index `name` finds under `value`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`${this.type.kind} has no cache index ${JSON.stringify(name)}`);
    const found: T[] = [];
    for (const key of index.entries.get(value) ?? []) {
      const entry = this.cache.get(key);
      if (entry) found.push(decode<T>(entry));
    }
    return found;
  }

  /** The store revision the cache reflects. */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /**
   * Resolves once the cache reflects `resourceVersion` (a write's), or with false after
   * `timeoutMs`. Revisions are compared as integers: both backends issue them that way (etcd's
   * revision, the embedded store's counter), though Kubernetes calls them opaque.
   */
  waitForResourceVersion(resourceVersion: string, timeoutMs: number): Promise<boolean> {
    const revision = BigInt(resourceVersion);
    if (this.resourceVersion !== undefined && BigInt(this.resourceVersion) >= revision) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.revisionWaiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.revisionWaiters.add(waiter);
    });
  }

  private async run(): Promise<void> {
    const delay = this.options.delay ?? defaultDelay;
    const minBackoff = this.options.minBackoffMs ?? 1000;
    const maxBackoff = this.options.maxBackoffMs ?? 30_000;
    let backoff = minBackoff;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        if (this.stopped) break;
        await this.watchFrom(this.resourceVersion!, () => (backoff = minBackoff));
      } catch (error) {
        if (this.stopped) break;
        if (isStoreError(error, 'Expired') || isStoreError(error, 'Gone')) {
          this.options.logger.info({ kind: this.type.kind }, 'watch history expired; relisting');
          this.resourceVersion = undefined;
          continue;
        }
        this.options.logger.warn(
          { kind: this.type.kind, err: error, retryInMs: backoff },
          'watch failed; reconnecting',
        );
        await delay(backoff);
        backoff = Math.min(backoff * 2, maxBackoff);
      }
    }
  }

  private async relist(): Promise<void> {
    const seen = new Set<string>();
    let continueToken: string | undefined;
    let listedAt: string | undefined;
    do {
      const page = await this.store.list<T>(this.type, {
        namespace: this.options.namespace,
        labelSelector: this.options.labelSelector,
        limit: 500,
        continue: continueToken,
      });
      listedAt ??= page.resourceVersion;
      for (const object of page.items) {
        const key = objectKey(object);
        seen.add(key);
        this.apply(key, object);
      }
      continueToken = page.continue;
    } while (continueToken);
    for (const [key, entry] of this.cache) {
      if (!seen.has(key)) {
        this.remove(key, decode<T>(entry));
        this.emit((handlers) => handlers.onDelete?.(decode<T>(entry)));
      }
    }
    if (listedAt !== undefined) this.advanceTo(listedAt);
    this.markSynced();
  }

  private async watchFrom(resourceVersion: string, onConnected: () => void): Promise<void> {
    const watch = this.store.watch<T>(this.type, {
      namespace: this.options.namespace,
      labelSelector: this.options.labelSelector,
      resourceVersion,
      allowBookmarks: true,
    });
    this.currentWatch = watch;
    if (this.stopped) watch.stop();
    let connected = false;
    for await (const event of watch) {
      if (!connected) {
        connected = true;
        onConnected();
      }
      const rv = event.object.metadata.resourceVersion;
      if (event.type === 'BOOKMARK') {
        if (rv) this.advanceTo(rv);
        continue;
      }
      const key = objectKey(event.object);
      if (event.type === 'DELETED') {
        const previous = this.cache.get(key);
        if (previous) this.remove(key, decode<T>(previous));
        if (previous) this.emit((handlers) => handlers.onDelete?.(structuredClone(event.object)));
      } else {
        this.apply(key, event.object);
      }
      if (rv) this.advanceTo(rv);
    }
    // A watch that ends without error is a server-side timeout: resume from where we are.
  }

  private advanceTo(resourceVersion: string): void {
    this.resourceVersion = resourceVersion;
    if (this.revisionWaiters.size === 0) return;
    const reached = BigInt(resourceVersion);
    for (const waiter of this.revisionWaiters) {
      if (waiter.revision <= reached) {
        this.revisionWaiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private apply(key: string, object: T): void {
    const previous = this.cache.get(key);
    if (previous && previous.resourceVersion === object.metadata.resourceVersion) return;
    if (previous && this.indexes.size > 0) {
      const before = decode<T>(previous);
      for (const index of this.indexes.values()) this.indexRemove(index, key, before);
    }
    const entry: Entry = {
      body: JSON.stringify(object),
      namespace: object.metadata.namespace,
      resourceVersion: object.metadata.resourceVersion,
    };
    this.cache.set(key, entry);
    for (const index of this.indexes.values()) this.indexAdd(index, key, object);
    if (previous) {
      this.emit((handlers) => handlers.onUpdate?.(decode<T>(previous), decode<T>(entry)));
    } else {
      this.emit((handlers) => handlers.onAdd?.(decode<T>(entry)));
    }
  }

  private remove(key: string, object: T): void {
    this.cache.delete(key);
    for (const index of this.indexes.values()) this.indexRemove(index, key, object);
  }

  private indexAdd(index: Index<T>, key: string, object: T): void {
    for (const value of index.keys(object)) {
      let keys = index.entries.get(value);
      if (!keys) index.entries.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private indexRemove(index: Index<T>, key: string, object: T): void {
    for (const value of index.keys(object)) {
      const keys = index.entries.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.entries.delete(value);
    }
  }

  private emit(call: (handlers: InformerHandlers<T>) => void): void {
    for (const handlers of this.handlers) {
      try {
        call(handlers);
      } catch (error) {
        this.options.logger.error({ kind: this.type.kind, err: error }, 'informer handler failed');
      }
    }
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }
}
