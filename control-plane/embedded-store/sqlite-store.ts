import Database from 'better-sqlite3';
import type { KindDescriptor } from '../kind-descriptor.js';
import type { Logger } from '../../observability/logger.js';
import { decodeContinue, encodeContinue } from '../continue-token.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { parseLabelSelector, type LabelMatcher } from '../label-selector.js';
import { applyMergePatch } from '../merge-patch.js';
import { compileKindSchema } from '../schema-validator.js';
import {
  alreadyExists,
  badRequest,
  cause,
  invalid,
  notFound,
  preconditionFailed,
  qualifiedResource,
  tooOldResourceVersion,
  unknownResource,
} from '../store-errors.js';
import { StoreTables, type EventRow } from './store-tables.js';
import { EVENT_KIND } from '../built-in-kinds.js';
import { DEFAULT_EVENT_TTL_MS, eventLastSeen } from '../event-objects.js';
import {
  apiVersionOf,
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
import { openSqliteFile } from './sqlite-file.js';
import { WalSync } from './wal-sync.js';
import { WatchStream, type ChangeRecord } from './watch-stream.js';
import { WriteTransaction, type KindIndex, type PublishedChange } from './write-transaction.js';
import {
  checkResourceVersion,
  decodeBody,
  isUnchanged,
  metaOf,
  prepareCreate,
  prepareStatusUpdate,
  prepareUpdate,
  renameGenerated,
  stringField,
  type FieldValidation,
  type ServedKind,
} from './write-rules.js';

export type { FieldValidation };

export interface EmbeddedStoreOptions {
  /** SQLite file path; ':memory:' allowed for tests. The control plane has the file to itself. */
  path: string;
  /**
   * Kinds this store accepts; objects of other kinds are rejected with NotFound. Each may carry a
   * structural `schema` (the CRD's openAPIV3Schema) that writes are pruned by and validated against.
   */
  kinds: KindDescriptor[];
  /** How many change events to keep for watch resume; older resourceVersions get 410 Expired. Default 10000. */
  historyLimit?: number;
  /** Injected clock for timestamps; default () => new Date(). */
  now?: () => Date;
  logger?: Logger;
  /** How often an idle watch that allows bookmarks receives one. Default 5000 ms. */
  bookmarkIntervalMs?: number;
  /**
   * Changes a watch may hold undelivered before it is ended with `Expired` (its consumer then
   * relists). Default 10000.
   */
  watchBufferLimit?: number;
  /** How long a write waits for another connection's lock on the file. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * How long an Event (when the store serves them) lives after its last write, as
   * kube-apiserver's `--event-ttl`. Default one hour.
   */
  eventTtlMs?: number;
  /** How often expired Events are removed. Default 60000 ms. */
  expirySweepIntervalMs?: number;
}

/** Write options of the embedded store: the interface's, plus how undeclared fields are treated. */
export interface EmbeddedWriteOptions extends WriteOptions {
  /** `Ignore` (default) drops undeclared fields silently; `Strict` rejects the write with 400 naming them. */
  fieldValidation?: FieldValidation;
}

const GENERATE_NAME_ATTEMPTS = 8;
const ROLLBACK = Symbol('dry run');

/** A write waiting for the next group commit. */
interface PendingWrite {
  dryRun: boolean;
  work: (tx: WriteTransaction) => unknown;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

type WriteOutcome = { ok: true; result: unknown; changes: PublishedChange[] } | { ok: false; error: unknown };

function resourceKey(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

function parseRevision(value: string): number {
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: "${value}"`);
  return Number(value);
}

function changeFromRow(row: EventRow): ChangeRecord {
  const object = JSON.parse(row.body) as JsonObject;
  const labels = metaOf(object).labels as Record<string, string> | undefined;
  const change: ChangeRecord = {
    revision: row.resource_version,
    namespace: row.namespace,
    type: row.type,
    body: row.body,
    labels,
  };
  if (row.previous_labels !== null)
    change.previousLabels = JSON.parse(row.previous_labels) as Record<string, string>;
  return change;
}

/**
 * The Kubernetes resource model on one SQLite file: the control plane of the embedded mode.
 * Writes are group-committed: those issued in one turn of the event loop share one transaction,
 * and a write's promise resolves only once its commit is flushed to disk (see `WalSync`), so an
 * acknowledged write survives a crash or a power loss. Watches are fed from memory once the
 * commit is on disk, and resume from the history table, which survives a restart.
 */
export class EmbeddedStore implements ObjectStore {
  private readonly tables: StoreTables;
  private readonly served = new Map<string, ServedKind>();
  private readonly byApiVersionKind = new Map<string, ServedKind>();
  private readonly watchers = new Map<string, Set<WatchStream>>();
  private readonly pending: PendingWrite[] = [];
  private readonly historyLimit: number;
  private readonly now: () => Date;
  private readonly expirySweep: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly options: EmbeddedStoreOptions,
    /** Flushes the WAL before commits are answered; see `openEmbeddedStore`. */
    private readonly walSync: WalSync = new WalSync(undefined),
  ) {
    this.tables = new StoreTables(db);
    this.historyLimit = Math.max(1, options.historyLimit ?? 10_000);
    this.now = options.now ?? (() => new Date());
    for (const descriptor of options.kinds) {
      const resource = resourceKey(descriptor);
      if (this.served.has(resource)) throw new Error(`kind ${descriptor.kind}: ${resource} is listed twice`);
      let schema;
      try {
        schema = descriptor.schema ? compileKindSchema(descriptor.schema) : undefined;
      } catch (error) {
        throw new Error(`kind ${descriptor.kind}: its schema does not compile: ${String(error)}`);
      }
      const kind: ServedKind = { descriptor, resource, apiVersion: apiVersionOf(descriptor), schema };
      this.served.set(resource, kind);
      this.byApiVersionKind.set(`${kind.apiVersion}/${descriptor.kind}`, kind);
    }
    if (this.served.has(resourceKey(EVENT_KIND))) {
      this.expirySweep = setInterval(() => {
        this.removeExpiredEvents().catch((error: unknown) =>
          options.logger?.warn({ err: error }, 'could not remove expired events'),
        );
      }, options.expirySweepIntervalMs ?? 60_000);
      // The sweep must never keep a stopping process alive; close() clears it.
      this.expirySweep.unref();
    }
  }

  /**
   * Removes the Events last written longer than `eventTtlMs` ago, as a kube-apiserver lets an
   * event's etcd lease lapse; answers how many went. Runs every `expirySweepIntervalMs`.
   */
  async removeExpiredEvents(): Promise<number> {
    const kind = this.served.get(resourceKey(EVENT_KIND));
    if (!kind) return 0;
    const cutoff = this.now().getTime() - (this.options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS);
    const expired = this.guard(() =>
      this.readAfterQueuedWrites(() => {
        const found: KubeObject[] = [];
        for (const row of this.tables.iterate(kind.resource, undefined, { namespace: '', name: '' })) {
          const object = JSON.parse(row.body) as KubeObject;
          const lastWrite = Date.parse(eventLastSeen(object) ?? '');
          if (!Number.isNaN(lastWrite) && lastWrite <= cutoff) found.push(object);
        }
        return found;
      }),
    );
    const removed = await Promise.all(
      expired.map((event) =>
        this.delete(kind.descriptor, event.metadata.namespace, event.metadata.name, {
          preconditions: { resourceVersion: event.metadata.resourceVersion },
        }).then(
          () => 1,
          // Rewritten meanwhile (a repeat counted) or already gone: it stays, or is gone anyway.
          () => 0,
        ),
      ),
    );
    return removed.reduce<number>((sum, count) => sum + count, 0);
  }

  /** The revision of the last committed write. */
  currentResourceVersion(): string {
    return String(this.guard(() => this.readAfterQueuedWrites(() => this.tables.revision())));
  }

  kinds(): KindDescriptor[] {
    return [...this.served.values()].map((kind) => kind.descriptor);
  }

  async get<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.guard(() =>
      this.readAfterQueuedWrites(() => this.load(this.kindOf(type), namespace, name) as unknown as T),
    );
  }

  async list<T extends KubeObject>(type: ResourceType, options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.guard(() => {
      const kind = this.kindOf(type);
      const namespace = kind.descriptor.namespaced ? options.namespace : undefined;
      const matches = parseLabelSelector(options.labelSelector);
      const limit = options.limit ?? 0;
      if (!Number.isInteger(limit) || limit < 0)
        throw badRequest(`limit must be a non-negative integer, not ${limit}`);
      const after = options.continue
        ? decodeContinue(options.continue, kind.resource)
        : { resource: kind.resource, namespace: '', name: '' };
      if (options.continue && namespace !== undefined && after.namespace !== namespace) {
        throw badRequest('continue key is not valid: it was issued for a different namespace');
      }
      if (limit === 0 && !options.continue && namespace !== undefined) {
        // A whole namespace, as the API's reads ask for it: its rows are cached between writes.
        return this.readAfterQueuedWrites(() => {
          const items: T[] = [];
          for (const row of this.tables.namespaceRows(kind.resource, namespace)) {
            const object = JSON.parse(row.body) as T;
            if (matches(object.metadata.labels)) items.push(object);
          }
          return { items, resourceVersion: String(this.tables.revision()) };
        });
      }
      return this.readAfterQueuedWrites(() =>
        this.db
          .transaction(() => {
            const items: T[] = [];
            let next: string | undefined;
            for (const row of this.tables.iterate(kind.resource, namespace, after)) {
              const object = JSON.parse(row.body) as T;
              if (!matches(object.metadata.labels)) continue;
              if (limit > 0 && items.length === limit) {
                const last = items[items.length - 1]?.metadata;
                next = encodeContinue({
                  resource: kind.resource,
                  namespace: last?.namespace ?? '',
                  name: last?.name ?? '',
                });
                break;
              }
              items.push(object);
            }
            const list: ObjectList<T> = { items, resourceVersion: String(this.tables.revision()) };
            if (next !== undefined) list.continue = next;
            return list;
          })
          .deferred(),
      );
    });
  }

  async create<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: EmbeddedWriteOptions = {},
  ): Promise<T> {
    return this.guard(() => {
      const kind = this.kindOf(type);
      const decoded = decodeBody(kind, object, options.fieldValidation);
      const named = stringField(metaOf(decoded), 'name') !== undefined;
      const prepared = prepareCreate(kind, decoded, this.now());
      const metadata = metaOf(prepared);
      return this.write(options.dryRun, (tx) => {
        for (let attempt = 1; this.exists(kind, metadata); attempt += 1) {
          if (named || attempt >= GENERATE_NAME_ATTEMPTS)
            throw alreadyExists(kind.descriptor, String(metadata.name));
          renameGenerated(prepared);
        }
        const created = tx.insert(kind, prepared);
        if (options.dryRun) delete metaOf(created).resourceVersion;
        return created as unknown as T;
      });
    });
  }

  async update<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: EmbeddedWriteOptions = {},
  ): Promise<T> {
    return this.replaceWith<T>(type, object, options, prepareUpdate);
  }

  async updateStatus<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: EmbeddedWriteOptions = {},
  ): Promise<T> {
    return this.replaceWith<T>(type, object, options, prepareStatusUpdate);
  }

  async patch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: EmbeddedWriteOptions & { subresource?: 'status' } = {},
  ): Promise<T> {
    return this.guard(() => {
      const kind = this.kindOf(type);
      if (!isJsonObject(patch)) throw badRequest('a merge patch must be a JSON object');
      const prepare = options.subresource === 'status' ? prepareStatusUpdate : prepareUpdate;
      return this.write(options.dryRun, (tx) => {
        const existing = this.load(kind, namespace, name);
        const merged = applyMergePatch(existing, patch) as JsonObject;
        const metadata = isJsonObject(merged.metadata) ? merged.metadata : {};
        if (metadata.name !== name || metadata.namespace !== existing.metadata.namespace) {
          throw badRequest(
            `a patch cannot change the name or namespace of ${qualifiedResource(type)} "${name}"`,
          );
        }
        const decoded = decodeBody(kind, merged, options.fieldValidation);
        const result = this.applyReplacement(tx, kind, decoded, existing as unknown as JsonObject, prepare);
        if (options.dryRun) metaOf(result).resourceVersion = existing.metadata.resourceVersion;
        return result as unknown as T;
      });
    });
  }

  async delete<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<T> {
    return this.guard(() => {
      const kind = this.kindOf(type);
      return this.write(options.dryRun, (tx) => {
        const existing = this.load(kind, namespace, name);
        const { uid, resourceVersion } = options.preconditions ?? {};
        if (uid !== undefined && uid !== existing.metadata.uid) {
          throw preconditionFailed(type, name, 'UID', uid, existing.metadata.uid);
        }
        if (resourceVersion !== undefined && resourceVersion !== existing.metadata.resourceVersion) {
          throw preconditionFailed(
            type,
            name,
            'ResourceVersion',
            resourceVersion,
            existing.metadata.resourceVersion,
          );
        }
        const result = tx.delete(
          kind,
          existing as unknown as JsonObject,
          options.propagationPolicy ?? 'Background',
        );
        if (options.dryRun) metaOf(result).resourceVersion = existing.metadata.resourceVersion;
        return result as unknown as T;
      });
    });
  }

  /**
   * Watches one kind. Bad requests (unknown kind, malformed selector or revision) and a revision
   * older than the kept history surface as the error of the first iteration step.
   */
  watch<T extends KubeObject>(type: ResourceType, options: WatchOptions = {}): Watch<T> {
    try {
      return this.guard(() => this.openWatch<T>(type, options));
    } catch (error) {
      return WatchStream.failed<T>(
        error instanceof StoreError ? error : new StoreError('InternalError', String(error)),
      );
    }
  }

  async ping(): Promise<void> {
    this.guard(() => this.tables.ping());
  }

  /** Ends every watch (their iterations finish cleanly) and closes the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already queued were promised an answer: commit them before the file goes.
    this.flush();
    this.closed = true;
    clearInterval(this.expirySweep);
    await this.walSync.drain();
    for (const streams of this.watchers.values()) for (const stream of [...streams]) stream.stop();
    this.watchers.clear();
    this.db.close();
    this.walSync.close();
    this.options.logger?.debug({ path: this.options.path }, 'object store closed');
  }

  private openWatch<T extends KubeObject>(type: ResourceType, options: WatchOptions): Watch<T> {
    const kind = this.kindOf(type);
    const namespace = kind.descriptor.namespaced ? options.namespace : undefined;
    const matches = parseLabelSelector(options.labelSelector);
    const requested = options.resourceVersion;
    const current = this.tables.revision();
    let snapshot: string[] = [];
    let replayAfter = current;
    let startRevision = current;
    if (requested === '0') {
      snapshot = this.snapshot(kind, namespace, matches);
    } else if (requested !== undefined && requested !== '') {
      replayAfter = parseRevision(requested);
      startRevision = Math.max(current, replayAfter);
      const compacted = this.tables.compactedRevision();
      if (replayAfter < compacted) throw tooOldResourceVersion(replayAfter, compacted + 1);
    }
    const set = this.watchers.get(kind.resource) ?? new Set<WatchStream>();
    this.watchers.set(kind.resource, set);
    const stream: WatchStream = new WatchStream({
      source: {
        history: (after, until, limit) => this.history(kind, namespace, after, until, limit),
        revision: () => this.tables.revision(),
        release: () => set.delete(stream),
      },
      apiVersion: kind.apiVersion,
      kind: kind.descriptor.kind,
      namespace,
      matches,
      snapshot,
      replayAfter,
      startRevision,
      bookmarkIntervalMs: options.allowBookmarks ? (this.options.bookmarkIntervalMs ?? 5000) : undefined,
      bufferLimit: this.options.watchBufferLimit ?? 10_000,
      logger: this.options.logger,
    });
    set.add(stream);
    return stream as unknown as Watch<T>;
  }

  private snapshot(kind: ServedKind, namespace: string | undefined, matches: LabelMatcher): string[] {
    const bodies: string[] = [];
    for (const row of this.tables.iterate(kind.resource, namespace, { namespace: '', name: '' })) {
      const object = JSON.parse(row.body) as KubeObject;
      if (matches(object.metadata.labels)) bodies.push(row.body);
    }
    return bodies;
  }

  private history(
    kind: ServedKind,
    namespace: string | undefined,
    after: number,
    until: number,
    limit: number,
  ): ChangeRecord[] {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const compacted = this.tables.compactedRevision();
          if (after < compacted) throw tooOldResourceVersion(after, compacted + 1);
          return this.tables.events(kind.resource, namespace, after, until, limit).map(changeFromRow);
        })
        .deferred(),
    );
  }

  private replaceWith<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: EmbeddedWriteOptions,
    prepare: typeof prepareUpdate,
  ): Promise<T> {
    return this.guard(() => {
      const kind = this.kindOf(type);
      const decoded = decodeBody(kind, object, options.fieldValidation);
      const metadata = metaOf(decoded);
      const name = stringField(metadata, 'name');
      const namespace = stringField(metadata, 'namespace');
      if (name === undefined) throw invalid(kind.descriptor, '', [cause.required('metadata.name')]);
      if (kind.descriptor.namespaced && namespace === undefined) {
        throw invalid(kind.descriptor, name, [cause.required('metadata.namespace')]);
      }
      return this.write(options.dryRun, (tx) => {
        const existing = this.load(kind, namespace, name);
        const uid = stringField(metadata, 'uid');
        if (uid !== undefined && uid !== existing.metadata.uid) {
          throw preconditionFailed(type, name, 'UID', uid, existing.metadata.uid);
        }
        const result = this.applyReplacement(tx, kind, decoded, existing as unknown as JsonObject, prepare);
        if (options.dryRun) metaOf(result).resourceVersion = existing.metadata.resourceVersion;
        return result as unknown as T;
      });
    });
  }

  private applyReplacement(
    tx: WriteTransaction,
    kind: ServedKind,
    decoded: JsonObject,
    existing: JsonObject,
    prepare: typeof prepareUpdate,
  ): JsonObject {
    checkResourceVersion(kind, metaOf(decoded).resourceVersion, existing);
    const next = prepare(kind, decoded, existing);
    return isUnchanged(next, existing) ? existing : tx.write(kind, existing, next);
  }

  /**
   * Queues `work` for the next group commit and answers once it is committed and flushed. Writes
   * issued within one turn of the event loop (or before a read, which commits the queue first)
   * share one immediate transaction; each runs in a savepoint of its own, so a write that fails
   * leaves the others standing. A dry run executes the same checks and writes, then rolls back
   * its savepoint.
   */
  private write<R>(dryRun: boolean | undefined, work: (tx: WriteTransaction) => R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({
        dryRun: dryRun === true,
        work,
        resolve: resolve as (result: unknown) => void,
        reject,
      });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /**
   * Commits the queued writes as one transaction and, once `WalSync` has flushed it, offers their
   * changes to the watches and answers each writer, in the order they were issued: an
   * acknowledged write is on disk.
   */
  private flush(): void {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    const index: KindIndex = {
      byResource: (resource) => this.served.get(resource),
      byApiVersionKind: (apiVersion, kind) => this.byApiVersionKind.get(`${apiVersion}/${kind}`),
    };
    const outcomes: WriteOutcome[] = [];
    const commit = this.db.transaction(() => {
      for (const entry of batch) outcomes.push(this.runInSavepoint(entry, index));
      this.tables.compactThrough(this.tables.revision() - this.historyLimit);
    });
    try {
      this.guard(() => commit.immediate());
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    // Failed writes wait too: their answer (AlreadyExists, say) may rest on a write not yet on disk.
    this.walSync.afterCommit((syncError) => {
      outcomes.forEach((outcome, position) => {
        const entry = batch[position]!;
        if (syncError) {
          entry.reject(notDurable(syncError, this.options.logger));
        } else if (outcome.ok) {
          this.publish(outcome.changes);
          entry.resolve(outcome.result);
        } else {
          entry.reject(outcome.error);
        }
      });
    });
  }

  private runInSavepoint(entry: PendingWrite, index: KindIndex): WriteOutcome {
    const tx = new WriteTransaction(this.tables, index, this.now());
    let result: unknown;
    try {
      // Nested in the batch's transaction, better-sqlite3 runs this as a savepoint.
      this.db.transaction(() => {
        result = entry.work(tx);
        if (entry.dryRun) throw ROLLBACK;
      })();
      return { ok: true, result, changes: tx.changes };
    } catch (error) {
      // Some SQLite failures (a full disk, an I/O error) end the whole transaction, taking the
      // batch's earlier writes with it: fail the batch rather than answer them as committed.
      if (!this.db.inTransaction) throw error;
      if (entry.dryRun && error === ROLLBACK) return { ok: true, result, changes: [] };
      return { ok: false, error };
    }
  }

  /**
   * Commits the queued writes before a read, so a read sees every write issued before it, as
   * when each write committed at once: a read-modify-write racing a controller's write then
   * starts from the newer object instead of failing with 409. The commit costs little without
   * its flush, which `WalSync` still runs once for many.
   */
  private readAfterQueuedWrites<R>(read: () => R): R {
    if (this.pending.length > 0) this.flush();
    return read();
  }

  private publish(changes: PublishedChange[]): void {
    for (const change of changes) {
      const streams = this.watchers.get(change.resource);
      if (!streams) continue;
      for (const stream of [...streams]) stream.offer(change);
    }
  }

  private kindOf(type: ResourceType): ServedKind {
    const kind = this.served.get(resourceKey(type));
    if (!kind || kind.descriptor.version !== type.version || kind.descriptor.kind !== type.kind) {
      throw unknownResource();
    }
    return kind;
  }

  private exists(kind: ServedKind, metadata: JsonObject): boolean {
    const namespace = kind.descriptor.namespaced ? String(metadata.namespace) : '';
    return this.tables.find(kind.resource, namespace, String(metadata.name)) !== undefined;
  }

  private load(kind: ServedKind, namespace: string | undefined, name: string): KubeObject {
    const scope = kind.descriptor.namespaced ? namespace : '';
    const row = scope === undefined ? undefined : this.tables.find(kind.resource, scope, name);
    if (!row) throw notFound(kind.descriptor, name);
    return JSON.parse(row.body) as KubeObject;
  }

  /** Runs a store operation, answering 503 once closed or while another connection holds the file. */
  private guard<R>(operation: () => R): R {
    if (this.closed) throw new StoreError('ServiceUnavailable', 'the object store is closed');
    try {
      return operation();
    } catch (error) {
      if (error instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(error.code)) {
        throw new StoreError('ServiceUnavailable', 'the object store is busy; retry');
      }
      throw error;
    }
  }
}

/** A failed flush of the WAL: the write is committed but may not survive a power loss. */
function notDurable(error: Error, logger: Logger | undefined): StoreError {
  logger?.error({ err: error }, 'could not flush the object store to disk');
  return new StoreError(
    'InternalError',
    `the write was committed but could not be flushed to disk: ${error.message}`,
  );
}

/**
 * Opens (creating when needed) the embedded store on `options.path` as every SQLite file of the
 * product is opened (`openSqliteFile`), the `store_` tables created if missing. Durability: every
 * write is answered only after `WalSync` has flushed the WAL, so an acknowledged write survives a
 * power loss as it would with `synchronous=FULL`, without the event loop waiting on the disk. Open
 * one store per file per process and share it: watches are fed in memory by the writes of their
 * own store.
 */
export function openEmbeddedStore(options: EmbeddedStoreOptions): EmbeddedStore {
  const { db, walSync } = openSqliteFile(options.path, { busyTimeoutMs: options.busyTimeoutMs });
  try {
    const store = new EmbeddedStore(db, options, walSync);
    options.logger?.info(
      { path: options.path, resourceVersion: store.currentResourceVersion(), kinds: options.kinds.length },
      'object store opened',
    );
    return store;
  } catch (error) {
    db.close();
    throw error;
  }
}
