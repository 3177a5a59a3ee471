import type { KubeConfig } from '@kubernetes/client-node';
import type { KindDescriptor } from '../kind-descriptor.js';
import type { Logger } from '../../observability/logger.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { isStatus } from './kubernetes-errors.js';
import { KubernetesHttp, type QueryValue, type RetryPolicy } from './kubernetes-http.js';
import { KubernetesWatch } from './kubernetes-watch.js';
import { badRequest, cause, invalid, qualifiedResource, unknownResource } from '../store-errors.js';
import {
  apiVersionOf,
  isStoreError,
  StoreError,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ObjectStore,
  type ResourceType,
  type Watch,
  type WatchOptions,
  type WriteOptions,
} from '../types.js';

export type { RetryPolicy };

export interface KubernetesStoreOptions {
  /** Which cluster and credentials: `loadFromDefault()` (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeConfig: KubeConfig;
  /** Kinds this store serves; a request for any other answers NotFound without reaching the cluster. */
  kinds: KindDescriptor[];
  logger: Logger;
  /** Retries of 429, 5xx and lost connections (see `RetryMode` for which requests). */
  retry?: RetryPolicy;
  /** How long one request may go without an answer. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * The `timeoutSeconds` a watch asks for: a random value between this and twice this, as
   * client-go's reflector does, so that many watches do not all reconnect at once. Default 300.
   */
  watchTimeoutSeconds?: number;
}

const MERGE_PATCH = 'application/merge-patch+json';
/** Deletes of a name whose object is replaced between the read and the delete, before giving up. */
const DELETE_ATTEMPTS = 3;

function resourceKey(type: ResourceType): string {
  return `${qualifiedResource(type)}/${type.version}`;
}

/**
 * The `ObjectStore` on a real kube-apiserver: every operation is the request kubectl would make,
 * and every refusal the apiserver's own `Status`, so controllers and the facade cannot tell this
 * backend from the embedded one.
 *
 * Two operations take more than the one request their names suggest:
 * - `watch` without a resourceVersion lists one item first and watches from that revision: an
 *   apiserver would otherwise start with an ADDED event for every existing object.
 * - `delete` reads the object first and deletes it on the condition that its uid is still the
 *   one read. An apiserver answers the removal of a custom resource (and of most built-in kinds)
 *   with a `Status` naming it, not the object; the answer is then the object as read, the last
 *   state known of exactly the object removed. When the object is kept (finalizers, foreground
 *   deletion) the answer is the apiserver's: the object as now marked.
 */
export class KubernetesStore implements ObjectStore {
  private readonly http: KubernetesHttp;
  private readonly served = new Map<string, KindDescriptor>();
  private readonly watches = new Set<Watch>();
  private readonly watchTimeoutSeconds: number;

  constructor(options: KubernetesStoreOptions) {
    this.http = new KubernetesHttp({
      kubeConfig: options.kubeConfig,
      logger: options.logger,
      retry: options.retry,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
    for (const kind of options.kinds) {
      const key = resourceKey(kind);
      if (this.served.has(key)) throw new Error(`kind ${kind.kind}: ${key} is listed twice`);
      this.served.set(key, kind);
    }
  }

  async get<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    const kind = this.kindOf(type);
    const body = await this.http.send({
      method: 'GET',
      path: this.objectPath(kind, namespace, name),
      retry: 'transient',
    });
    return this.complete<T>(kind, body);
  }

  async list<T extends KubeObject>(type: ResourceType, options: ListOptions = {}): Promise<ObjectList<T>> {
    const kind = this.kindOf(type);
    const limit = options.limit ?? 0;
    if (!Number.isInteger(limit) || limit < 0)
      throw badRequest(`limit must be a non-negative integer, not ${limit}`);
    const body = await this.http.send({
      method: 'GET',
      path: this.collectionPath(kind, kind.namespaced ? options.namespace : undefined),
      query: {
        labelSelector: options.labelSelector || undefined,
        limit: limit || undefined,
        continue: options.continue || undefined,
      },
      retry: 'transient',
    });
    const list = isJsonObject(body) ? body : {};
    const metadata = isJsonObject(list.metadata) ? list.metadata : {};
    const items = Array.isArray(list.items) ? list.items : [];
    const answer: ObjectList<T> = {
      items: items.map((item) => this.complete<T>(kind, item)),
      resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '',
    };
    if (typeof metadata.continue === 'string' && metadata.continue !== '')
      answer.continue = metadata.continue;
    return answer;
  }

  async create<T extends KubeObject>(type: ResourceType, object: T, options: WriteOptions = {}): Promise<T> {
    const kind = this.kindOf(type);
    const body = this.bodyOf(kind, object);
    const metadata = body.metadata as JsonObject;
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const answer = await this.http.send({
      method: 'POST',
      path: this.collectionPath(kind, this.namespaceFor(kind, metadata, name)),
      query: dryRun(options),
      body,
      retry: 'unsent',
    });
    return this.complete<T>(kind, answer);
  }

  async update<T extends KubeObject>(type: ResourceType, object: T, options: WriteOptions = {}): Promise<T> {
    return this.replace<T>(type, object, options, '');
  }

  async updateStatus<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.replace<T>(type, object, options, '/status');
  }

  async patch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): Promise<T> {
    const kind = this.kindOf(type);
    if (!isJsonObject(patch)) throw badRequest('a merge patch must be a JSON object');
    const suffix = options.subresource === 'status' ? '/status' : '';
    const answer = await this.http.send({
      method: 'PATCH',
      path: `${this.objectPath(kind, namespace, name)}${suffix}`,
      query: dryRun(options),
      body: patch,
      contentType: MERGE_PATCH,
      retry: 'transient',
    });
    return this.complete<T>(kind, answer);
  }

  async delete<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<T> {
    const kind = this.kindOf(type);
    let conflict: StoreError | undefined;
    let conflictUid: string | undefined;
    for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt += 1) {
      const last = await this.get<T>(kind, namespace, name);
      if (conflict && last.metadata.uid === conflictUid) throw conflict;
      // The uid read is made a precondition, so the state answered is that of the object removed.
      const pinned = options.preconditions?.uid === undefined;
      const preconditions = pinned
        ? { ...options.preconditions, uid: last.metadata.uid }
        : options.preconditions;
      // With a body the apiserver reads every option from it and ignores the query.
      const deleteOptions: JsonObject = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions };
      if (options.propagationPolicy) deleteOptions.propagationPolicy = options.propagationPolicy;
      if (options.dryRun) deleteOptions.dryRun = ['All'];
      try {
        const answer = await this.http.send({
          method: 'DELETE',
          path: this.objectPath(kind, namespace, name),
          body: deleteOptions,
          retry: 'transient',
        });
        return isStatus(answer) ? last : this.complete<T>(kind, answer);
      } catch (error) {
        if (!pinned || !isStoreError(error, 'Conflict')) throw error;
        conflict = error;
        conflictUid = last.metadata.uid;
      }
    }
    throw conflict;
  }

  watch<T extends KubeObject>(type: ResourceType, options: WatchOptions = {}): Watch<T> {
    const watch = new KubernetesWatch<T>(
      async (signal) => {
        const kind = this.kindOf(type);
        const namespace = kind.namespaced ? options.namespace : undefined;
        const resourceVersion =
          options.resourceVersion ?? (await this.list(kind, { namespace, limit: 1 })).resourceVersion;
        const timeoutSeconds = Math.round(this.watchTimeoutSeconds * (1 + Math.random()));
        const query: Record<string, QueryValue> = {
          watch: 1,
          resourceVersion,
          labelSelector: options.labelSelector || undefined,
          allowWatchBookmarks: options.allowBookmarks || undefined,
          timeoutSeconds,
        };
        // A server that stays silent a minute past its own deadline is gone.
        return this.http.openStream(
          this.collectionPath(kind, namespace),
          query,
          signal,
          (timeoutSeconds + 60) * 1000,
        );
      },
      (object) => this.complete<T>(this.kindOf(type), object),
      () => this.watches.delete(watch),
    );
    this.watches.add(watch);
    return watch;
  }

  async ping(): Promise<void> {
    await this.http.send({ method: 'GET', path: '/version', retry: 'never' });
  }

  async close(): Promise<void> {
    for (const watch of [...this.watches]) watch.stop();
    this.http.close();
  }

  private async replace<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: WriteOptions,
    suffix: '' | '/status',
  ): Promise<T> {
    const kind = this.kindOf(type);
    const body = this.bodyOf(kind, object);
    const metadata = body.metadata as JsonObject;
    if (typeof metadata.name !== 'string' || metadata.name === '') {
      throw invalid(kind, '', [cause.required('metadata.name')]);
    }
    const namespace = this.namespaceFor(kind, metadata, metadata.name);
    const answer = await this.http.send({
      method: 'PUT',
      path: `${this.objectPath(kind, namespace, metadata.name)}${suffix}`,
      query: dryRun(options),
      body,
      retry: 'transient',
    });
    return this.complete<T>(kind, answer);
  }

  private kindOf(type: ResourceType): KindDescriptor {
    const kind = this.served.get(resourceKey(type));
    if (!kind) throw unknownResource();
    return kind;
  }

  /** The object as sent: a copy, with apiVersion and kind filled in when the caller left them out. */
  private bodyOf(kind: KindDescriptor, object: KubeObject): JsonObject {
    if (!isJsonObject(object)) throw badRequest('the object must be a JSON object');
    const body = structuredClone(object) as unknown as JsonObject;
    body.apiVersion ??= apiVersionOf(kind);
    body.kind ??= kind.kind;
    if (!isJsonObject(body.metadata)) body.metadata = {};
    return body;
  }

  private namespaceFor(kind: KindDescriptor, metadata: JsonObject, name: string): string | undefined {
    if (!kind.namespaced) return undefined;
    if (typeof metadata.namespace !== 'string' || metadata.namespace === '') {
      throw invalid(kind, name, [cause.required('metadata.namespace')]);
    }
    return metadata.namespace;
  }

  private collectionPath(kind: KindDescriptor, namespace: string | undefined): string {
    const root = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
    const scope =
      kind.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${root}${scope}/${kind.plural}`;
  }

  private objectPath(kind: KindDescriptor, namespace: string | undefined, name: string): string {
    if (kind.namespaced && !namespace) {
      throw badRequest(`${qualifiedResource(kind)} is namespaced: a namespace is required`);
    }
    if (!name) throw badRequest('a name is required');
    return `${this.collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
  }

  /** Items of a list of a built-in kind arrive without apiVersion and kind; objects never lack them here. */
  private complete<T extends KubeObject>(kind: KindDescriptor, value: unknown): T {
    if (!isJsonObject(value)) {
      throw new StoreError(
        'InternalError',
        `the Kubernetes API answered a ${typeof value} where an object was expected`,
      );
    }
    value.apiVersion ??= apiVersionOf(kind);
    value.kind ??= kind.kind;
    return value as unknown as T;
  }
}

function dryRun(options: WriteOptions): Record<string, QueryValue> {
  return { dryRun: options.dryRun ? 'All' : undefined };
}

/** Opens the `ObjectStore` on the cluster `kubeConfig` names. Nothing is sent until the first call. */
export function openKubernetesStore(options: KubernetesStoreOptions): ObjectStore {
  return new KubernetesStore(options);
}
