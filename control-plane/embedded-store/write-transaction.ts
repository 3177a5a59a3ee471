import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../json-value.js';
import type { ObjectKey, OwnerLink, StoreTables } from './store-tables.js';
import type { ChangeRecord } from './watch-stream.js';
import { finalizersOf, markDeleted, metaOf, type ServedKind } from './write-rules.js';
import type { DeleteOptions } from '../types.js';

/** The finalizer a foreground deletion holds until the owner's blocking dependents are gone. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PropagationPolicy = NonNullable<DeleteOptions['propagationPolicy']>;

/** A committed change and the resource it belongs to, ready to offer to watches. */
export interface PublishedChange extends ChangeRecord {
  resource: string;
}

/** Finds the kind of a stored object or of an owner reference. */
export interface KindIndex {
  byResource(resource: string): ServedKind | undefined;
  byApiVersionKind(apiVersion: string, kind: string): ServedKind | undefined;
}

interface OwnerReferenceShape {
  apiVersion: string;
  kind: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

function ownerReferences(object: JsonObject): OwnerReferenceShape[] {
  const references = metaOf(object).ownerReferences;
  return Array.isArray(references)
    ? references.filter((entry): entry is OwnerReferenceShape => isJsonObject(entry))
    : [];
}

function labelsOf(object: JsonObject): Record<string, string> | undefined {
  const labels = metaOf(object).labels;
  return isJsonObject(labels) ? (labels as Record<string, string>) : undefined;
}

function isDeleting(object: JsonObject): boolean {
  return metaOf(object).deletionTimestamp !== undefined;
}

/**
 * The writes of one SQLite transaction: each stamps the next global revision, records its event
 * in the history, and keeps the owner index current. Deletion follows the garbage collector's
 * rules in the same transaction: finalizers hold an object, removal cascades to dependents
 * (unless orphaned), and a foreground deletion waits for its blocking dependents.
 */
export class WriteTransaction {
  readonly changes: PublishedChange[] = [];

  constructor(
    private readonly tables: StoreTables,
    private readonly kinds: KindIndex,
    private readonly now: Date,
  ) {}

  insert(kind: ServedKind, object: JsonObject): JsonObject {
    const metadata = metaOf(object);
    const revision = this.stamp(object);
    const uid = String(metadata.uid);
    const namespace = String(metadata.namespace ?? '');
    const body = JSON.stringify(object);
    this.tables.insert({
      resource: kind.resource,
      namespace,
      name: String(metadata.name),
      uid,
      resource_version: revision,
      body,
    });
    this.tables.setOwners(uid, this.ownerLinks(object));
    this.record(kind, revision, 'ADDED', object, body);
    return object;
  }

  /**
   * Stores `next` in place of `previous`. An object being deleted whose last finalizer is gone
   * is removed instead; the answer is then its final state.
   */
  write(kind: ServedKind, previous: JsonObject, next: JsonObject): JsonObject {
    if (isDeleting(next)) {
      const finalizers = finalizersOf(next);
      const uid = String(metaOf(next).uid);
      if (finalizers.includes(FOREGROUND_FINALIZER) && !this.tables.hasBlockingDependents(uid)) {
        metaOf(next).finalizers = finalizers.filter((finalizer) => finalizer !== FOREGROUND_FINALIZER);
      }
      if (finalizersOf(next).length === 0) return this.remove(kind, next);
    }
    return this.replace(kind, previous, next);
  }

  /**
   * The delete operation: removes the object, or marks it while finalizers remain. Answers the
   * object as it was before removal, or as marked.
   */
  delete(kind: ServedKind, existing: JsonObject, policy: PropagationPolicy): JsonObject {
    const uid = String(metaOf(existing).uid);
    if (policy === 'Orphan') this.orphanDependents(uid);
    let finalizers = finalizersOf(existing);
    const foreground = policy === 'Foreground' && this.tables.hasBlockingDependents(uid);
    if (foreground && !finalizers.includes(FOREGROUND_FINALIZER))
      finalizers = [...finalizers, FOREGROUND_FINALIZER];
    if (finalizers.length === 0) {
      this.remove(kind, cloneJson(existing));
      return existing;
    }
    const marked = markDeleted(existing, this.now, finalizers);
    const result = jsonEqual(marked, existing) ? existing : this.replace(kind, existing, marked);
    if (policy === 'Foreground') this.collectDependents(uid, true);
    return result;
  }

  private replace(kind: ServedKind, previous: JsonObject, next: JsonObject): JsonObject {
    const revision = this.stamp(next);
    const uid = String(metaOf(next).uid);
    const body = JSON.stringify(next);
    this.tables.update(this.keyOf(kind, next), revision, body);
    const owners = ownerReferences(next);
    const formerOwners = ownerReferences(previous);
    if (!jsonEqual(owners, formerOwners)) this.tables.setOwners(uid, this.ownerLinks(next));
    const before = labelsOf(previous);
    const labelsChanged = !jsonEqual(before ?? {}, labelsOf(next) ?? {});
    this.record(kind, revision, 'MODIFIED', next, body, labelsChanged ? { previousLabels: before } : {});
    const remaining = new Set(owners.map((owner) => owner.uid));
    for (const owner of formerOwners) if (!remaining.has(owner.uid)) this.settleForegroundOwner(owner.uid);
    return next;
  }

  private remove(kind: ServedKind, finalState: JsonObject): JsonObject {
    const revision = this.stamp(finalState);
    const uid = String(metaOf(finalState).uid);
    this.tables.remove(this.keyOf(kind, finalState));
    this.record(kind, revision, 'DELETED', finalState, JSON.stringify(finalState));
    this.collectDependents(uid, false);
    for (const owner of ownerReferences(finalState)) this.settleForegroundOwner(owner.uid);
    return finalState;
  }

  /**
   * Deletes the dependents of an owner that is gone (or, in the foreground, going), except those
   * that still have another owner: those only lose the reference, as the garbage collector does.
   */
  private collectDependents(ownerUid: string, foreground: boolean): void {
    for (const { uid } of this.tables.dependents(ownerUid)) {
      const row = this.tables.findByUid(uid);
      const kind = row && this.kinds.byResource(row.resource);
      if (!row || !kind) continue;
      const dependent = JSON.parse(row.body) as JsonObject;
      const references = ownerReferences(dependent);
      const reference = references.find((entry) => entry.uid === ownerUid);
      if (!reference) continue;
      const others = references.filter((entry) => entry.uid !== ownerUid);
      if (others.some((entry) => this.ownerExists(entry))) {
        this.write(kind, dependent, this.withOwners(dependent, others));
      } else {
        this.delete(
          kind,
          dependent,
          foreground && reference.blockOwnerDeletion === true ? 'Foreground' : 'Background',
        );
      }
    }
  }

  private orphanDependents(ownerUid: string): void {
    for (const row of this.tables.dependents(ownerUid)) {
      const kind = this.kinds.byResource(row.resource);
      if (!kind) continue;
      const dependent = JSON.parse(row.body) as JsonObject;
      const others = ownerReferences(dependent).filter((entry) => entry.uid !== ownerUid);
      this.write(kind, dependent, this.withOwners(dependent, others));
    }
  }

  /** Lets an owner deleted in the foreground go once no blocking dependent remains. */
  private settleForegroundOwner(ownerUid: string): void {
    const row = this.tables.findByUid(ownerUid);
    const kind = row && this.kinds.byResource(row.resource);
    if (!row || !kind) return;
    const owner = JSON.parse(row.body) as JsonObject;
    const finalizers = finalizersOf(owner);
    if (!isDeleting(owner) || !finalizers.includes(FOREGROUND_FINALIZER)) return;
    if (this.tables.hasBlockingDependents(ownerUid)) return;
    const next = cloneJson(owner);
    metaOf(next).finalizers = finalizers.filter((finalizer) => finalizer !== FOREGROUND_FINALIZER);
    this.write(kind, owner, next);
  }

  /** An owner of a kind this store serves exists when its uid does; other kinds cannot be checked and count as present. */
  private ownerExists(reference: OwnerReferenceShape): boolean {
    if (!this.kinds.byApiVersionKind(reference.apiVersion, reference.kind)) return true;
    return this.tables.findByUid(reference.uid) !== undefined;
  }

  private withOwners(object: JsonObject, owners: OwnerReferenceShape[]): JsonObject {
    const next = cloneJson(object);
    if (owners.length > 0) metaOf(next).ownerReferences = owners;
    else delete metaOf(next).ownerReferences;
    return next;
  }

  private ownerLinks(object: JsonObject): OwnerLink[] {
    return ownerReferences(object).map((reference) => ({
      ownerUid: reference.uid,
      blocksOwnerDeletion: reference.blockOwnerDeletion === true,
    }));
  }

  private stamp(object: JsonObject): number {
    const revision = this.tables.nextRevision();
    metaOf(object).resourceVersion = String(revision);
    return revision;
  }

  private keyOf(kind: ServedKind, object: JsonObject): ObjectKey {
    const metadata = metaOf(object);
    return {
      resource: kind.resource,
      namespace: String(metadata.namespace ?? ''),
      name: String(metadata.name),
      uid: String(metadata.uid),
    };
  }

  private record(
    kind: ServedKind,
    revision: number,
    type: ChangeRecord['type'],
    object: JsonObject,
    body: string,
    extra: Pick<ChangeRecord, 'previousLabels'> = {},
  ): void {
    const namespace = String(metaOf(object).namespace ?? '');
    const labels = labelsOf(object);
    this.tables.addEvent({
      resource_version: revision,
      resource: kind.resource,
      namespace,
      type,
      body,
      previous_labels: 'previousLabels' in extra ? JSON.stringify(extra.previousLabels ?? {}) : null,
    });
    this.changes.push({ resource: kind.resource, revision, namespace, type, body, labels, ...extra });
  }
}
