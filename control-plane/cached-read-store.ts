import type { Logger } from '../observability/logger.js';
import { Informer, objectKey } from './informer.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { parseLabelSelector } from './label-selector.js';
import { notFound, qualifiedResource } from './store-errors.js';
import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectList,
  ObjectStore,
  ResourceType,
  Watch,
  WatchOptions,
  WriteOptions,
} from './types.js';

/** How long a read waits for the cache to catch up with this replica's own write. */
const DEFAULT_CATCH_UP_MS = 3_000;

export interface CachedReadStoreOptions {
  /** The kinds whose reads come from the cache; others go to the inner store. */
  kinds: readonly ResourceType[];
  logger: Logger;
  catchUpMs?: number;
  /** Informer reconnect delay, injected by tests. */
  informerDelay?: (ms: number) => Promise<void>;
}

interface CachedKind {
  informer: Informer;
  /** The newest revision this replica wrote; reads wait until the cache has seen it. */
  writtenRevision?: string;
  /** Objects this replica deleted that the cache may still hold, with their last revision. */
  deleted: Map<string, string>;
}

const typeKey = (type: ResourceType) => `${type.plural}.${type.group}/${type.version}`;

/**
 * An `ObjectStore` whose reads of the given kinds are served from informer caches and whose
 * writes go to the inner store: what keeps API replicas from listing the kube-apiserver on every
 * request. A replica reads its own writes: after a write, reads of that kind wait until the cache
 * has seen it (falling back to the inner store if it has not within `catchUpMs`), and an object
 * it deleted is hidden until the cache drops it. Other replicas' writes appear as fast as the
 * watch delivers them, as with any informer.
 */
export class CachedReadStore implements ObjectStore {
  private readonly cached = new Map<string, CachedKind>();
  private readonly catchUpMs: number;

  constructor(
    private readonly inner: ObjectStore,
    options: CachedReadStoreOptions,
  ) {
    this.catchUpMs = options.catchUpMs ?? DEFAULT_CATCH_UP_MS;
    for (const type of options.kinds) {
      const informer = new Informer(inner, type, { logger: options.logger, delay: options.informerDelay });
      const entry: CachedKind = { informer, deleted: new Map() };
      informer.addHandlers({ onDelete: (object) => entry.deleted.delete(objectKey(object)) });
      this.cached.set(typeKey(type), entry);
      informer.start();
    }
  }

  /** Resolves once every cache has listed its kind. */
  async synced(): Promise<void> {
    await Promise.all([...this.cached.values()].map(({ informer }) => informer.waitForSync()));
  }

  async get<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    const entry = await this.freshEntry(type);
    if (!entry) return this.inner.get<T>(type, namespace, name);
    const key = namespace ? `${namespace}/${name}` : name;
    const object = entry.informer.get(namespace, name);
    if (!object || this.hiddenAsDeleted(entry, key, object)) throw notFound(type, name);
    return object as T;
  }

  async list<T extends KubeObject>(type: ResourceType, options: ListOptions = {}): Promise<ObjectList<T>> {
    const entry = await this.freshEntry(type);
    if (!entry) return this.inner.list<T>(type, options);
    const matches = parseLabelSelector(options.labelSelector);
    const resource = qualifiedResource(type);
    const after = options.continue ? decodeContinue(options.continue, resource) : undefined;
    const items = entry.informer
      .list(options.namespace)
      .filter((object) => !this.hiddenAsDeleted(entry, objectKey(object), object))
      .filter((object) => matches(object.metadata.labels))
      .sort(byNamespaceAndName)
      .filter(
        (object) =>
          !after ||
          compareKeys(object.metadata.namespace ?? '', object.metadata.name, after.namespace, after.name) > 0,
      );
    const page = options.limit && options.limit > 0 ? items.slice(0, options.limit) : items;
    const last = page[page.length - 1];
    const list: ObjectList<T> = {
      items: page as T[],
      resourceVersion: entry.informer.lastResourceVersion ?? '0',
    };
    if (last && page.length < items.length) {
      list.continue = encodeContinue({
        resource,
        namespace: last.metadata.namespace ?? '',
        name: last.metadata.name,
      });
    }
    return list;
  }

  async create<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): Promise<T> {
    return this.wrote(type, await this.inner.create(type, object, options), options);
  }

  async update<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): Promise<T> {
    return this.wrote(type, await this.inner.update(type, object, options), options);
  }

  async updateStatus<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options?: WriteOptions,
  ): Promise<T> {
    return this.wrote(type, await this.inner.updateStatus(type, object, options), options);
  }

  async patch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options?: WriteOptions & { subresource?: 'status' },
  ): Promise<T> {
    return this.wrote(type, await this.inner.patch<T>(type, namespace, name, patch, options), options);
  }

  async delete<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): Promise<T> {
    const result = await this.inner.delete<T>(type, namespace, name, options);
    const entry = this.cached.get(typeKey(type));
    if (entry && !options?.dryRun) {
      if (result.metadata.deletionTimestamp) {
        // Still there, held by finalizers: an ordinary write of the deletion mark.
        this.noteWrite(entry, result.metadata.resourceVersion);
      } else if (result.metadata.resourceVersion) {
        entry.deleted.set(objectKey(result), result.metadata.resourceVersion);
      }
    }
    return result;
  }

  watch<T extends KubeObject>(type: ResourceType, options?: WatchOptions): Watch<T> {
    return this.inner.watch<T>(type, options);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    await Promise.all([...this.cached.values()].map(({ informer }) => informer.stop()));
    await this.inner.close();
  }

  private wrote<T extends KubeObject>(type: ResourceType, object: T, options?: WriteOptions): T {
    const entry = this.cached.get(typeKey(type));
    if (entry && !options?.dryRun) this.noteWrite(entry, object.metadata.resourceVersion);
    return object;
  }

  private noteWrite(entry: CachedKind, resourceVersion: string | undefined): void {
    if (resourceVersion === undefined) return;
    if (entry.writtenRevision === undefined || BigInt(resourceVersion) > BigInt(entry.writtenRevision)) {
      entry.writtenRevision = resourceVersion;
    }
  }

  /** The cache of a kind once it reflects this replica's writes; undefined means read the inner store. */
  private async freshEntry(type: ResourceType): Promise<CachedKind | undefined> {
    const entry = this.cached.get(typeKey(type));
    if (!entry || !entry.informer.hasSynced) return undefined;
    if (entry.writtenRevision === undefined) return entry;
    return (await entry.informer.waitForResourceVersion(entry.writtenRevision, this.catchUpMs))
      ? entry
      : undefined;
  }

  private hiddenAsDeleted(entry: CachedKind, key: string, object: KubeObject): boolean {
    const deletedAt = entry.deleted.get(key);
    if (deletedAt === undefined) return false;
    if (BigInt(object.metadata.resourceVersion ?? '0') > BigInt(deletedAt)) {
      // Made again since: the deletion is history.
      entry.deleted.delete(key);
      return false;
    }
    return true;
  }
}

function compareKeys(namespaceA: string, nameA: string, namespaceB: string, nameB: string): number {
  if (namespaceA !== namespaceB) return namespaceA < namespaceB ? -1 : 1;
  if (nameA === nameB) return 0;
  return nameA < nameB ? -1 : 1;
}

function byNamespaceAndName(a: KubeObject, b: KubeObject): number {
  return compareKeys(
    a.metadata.namespace ?? '',
    a.metadata.name,
    b.metadata.namespace ?? '',
    b.metadata.name,
  );
}
