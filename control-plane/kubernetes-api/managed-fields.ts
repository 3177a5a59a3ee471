import { cloneJson, isJsonObject, jsonEqual, setOwn, type JsonObject } from '../json-value.js';
import { KubeApiError } from './kube-status.js';

/**
 * Field ownership (`metadata.managedFields`) as server-side apply keeps it, for the subset this
 * API implements: maps are granular, lists are atomic (what a CRD list is unless its schema says
 * otherwise), and fields are tracked for writes of the main resource.
 */

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

type FieldPath = string[];

/** Metadata the server owns or that names the object: never part of a field set. */
const IDENTITY_METADATA = new Set([
  'name',
  'namespace',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

function leafPaths(value: unknown, prefix: FieldPath, into: FieldPath[]): FieldPath[] {
  if (isJsonObject(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leafPaths(child, [...prefix, key], into);
  } else if (prefix.length > 0) {
    into.push(prefix);
  }
  return into;
}

/** The fields an object sets, leaf by leaf, leaving out identity, server fields and status. */
export function fieldsOf(object: JsonObject): FieldPath[] {
  const paths: FieldPath[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key === 'metadata' && isJsonObject(value)) {
      for (const [field, child] of Object.entries(value)) {
        if (!IDENTITY_METADATA.has(field)) leafPaths(child, ['metadata', field], paths);
      }
    } else {
      leafPaths(value, [key], paths);
    }
  }
  return paths;
}

function overlaps(a: FieldPath, b: FieldPath): boolean {
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  return shorter.every((segment, index) => longer[index] === segment);
}

function same(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && a.every((segment, index) => b[index] === segment);
}

export function valueAt(object: unknown, path: FieldPath): unknown {
  let current = object;
  for (const segment of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function setAt(object: JsonObject, path: FieldPath, value: unknown): void {
  let current = object;
  path.slice(0, -1).forEach((segment) => {
    if (!isJsonObject(current[segment])) setOwn(current, segment, {});
    current = current[segment] as JsonObject;
  });
  const last = path[path.length - 1] ?? '';
  const emptyObject = isJsonObject(value) && Object.keys(value).length === 0;
  if (emptyObject && isJsonObject(current[last])) return;
  setOwn(current, last, cloneJson(value));
}

function removeAt(object: JsonObject, path: FieldPath): void {
  const parent = valueAt(object, path.slice(0, -1));
  if (isJsonObject(parent)) delete parent[path[path.length - 1] ?? ''];
}

/** FieldsV1 (`{"f:spec":{"f:size":{}}}`) of a set of paths; `.` marks a map owned as well as some of its fields. */
function toFieldsV1(paths: FieldPath[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const segment of path) {
      const key = `f:${segment}`;
      if (!isJsonObject(node[key])) setOwn(node, key, {});
      node = node[key] as JsonObject;
    }
  }
  for (const path of paths) {
    const node = valueAt(
      root,
      path.map((segment) => `f:${segment}`),
    );
    if (isJsonObject(node) && Object.keys(node).some((key) => key !== '.')) node['.'] = {};
  }
  return root;
}

/** The paths a FieldsV1 set names. Keys of list items (`k:`, `v:`, `i:`) count as owning the whole list. */
function fromFieldsV1(fields: unknown, prefix: FieldPath = [], into: FieldPath[] = []): FieldPath[] {
  if (!isJsonObject(fields)) return into;
  const keys = Object.keys(fields);
  if (keys.length === 0 || keys.some((key) => /^[kvi]:/.test(key))) {
    if (prefix.length > 0) into.push(prefix);
    return into;
  }
  for (const key of keys) {
    if (key === '.') into.push(prefix);
    else if (key.startsWith('f:')) fromFieldsV1(fields[key], [...prefix, key.slice(2)], into);
  }
  return into;
}

function entriesOf(object: JsonObject | undefined): ManagedFieldsEntry[] {
  const metadata = object && isJsonObject(object.metadata) ? object.metadata : {};
  const entries = metadata.managedFields;
  return Array.isArray(entries)
    ? entries.filter(
        (entry): entry is ManagedFieldsEntry => isJsonObject(entry) && typeof entry.manager === 'string',
      )
    : [];
}

function entry(
  manager: string,
  operation: ManagedFieldsEntry['operation'],
  apiVersion: string,
  time: string,
  paths: FieldPath[],
): ManagedFieldsEntry {
  return { manager, operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(paths) };
}

function withoutPaths(entry: ManagedFieldsEntry, drop: (path: FieldPath) => boolean): ManagedFieldsEntry {
  const kept = fromFieldsV1(entry.fieldsV1).filter((path) => !drop(path));
  return { ...entry, fieldsV1: toFieldsV1(kept) };
}

function isEmpty(entry: ManagedFieldsEntry): boolean {
  return Object.keys(entry.fieldsV1).length === 0;
}

function setManagedFields(object: JsonObject, entries: ManagedFieldsEntry[]): JsonObject {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  object.metadata = metadata;
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return object;
}

export interface ManagerIdentity {
  manager: string;
  apiVersion: string;
  /** Timestamp of the write, whole seconds. */
  time: string;
}

/**
 * `next` with its managedFields after a create or update by `manager`: the fields that changed
 * become the manager's (an `Update` entry), other managers lose them, and fields that were
 * removed belong to nobody. A write that changes no field keeps the entries as they were.
 */
export function recordUpdate(
  previous: JsonObject | undefined,
  next: JsonObject,
  who: ManagerIdentity,
): JsonObject {
  const before = entriesOf(previous);
  const changed = fieldsOf(next).filter(
    (path) => previous === undefined || !jsonEqual(valueAt(previous, path), valueAt(next, path)),
  );
  const removed =
    previous === undefined ? [] : fieldsOf(previous).filter((path) => valueAt(next, path) === undefined);
  if (changed.length === 0 && removed.length === 0) return setManagedFields(next, before);
  const touched = [...changed, ...removed];
  const isOwn = (candidate: ManagedFieldsEntry) =>
    candidate.manager === who.manager &&
    candidate.operation === 'Update' &&
    candidate.subresource === undefined;
  const others = before
    .filter((candidate) => !isOwn(candidate))
    .map((candidate) => withoutPaths(candidate, (path) => touched.some((other) => overlaps(path, other))))
    .filter((candidate) => !isEmpty(candidate));
  const owned = before.filter(isOwn).flatMap((candidate) => fromFieldsV1(candidate.fieldsV1));
  const kept = owned.filter(
    (path) => !removed.some((other) => overlaps(path, other)) && !changed.some((other) => same(path, other)),
  );
  const mine = entry(who.manager, 'Update', who.apiVersion, who.time, [...kept, ...changed]);
  return setManagedFields(next, isEmpty(mine) ? others : [...others, mine]);
}

interface Conflict {
  manager: string;
  apiVersion: string;
  path: FieldPath;
}

function conflictError(conflicts: Conflict[]): KubeApiError {
  const byManager = new Map<string, Conflict[]>();
  for (const conflict of conflicts) {
    const key = `"${conflict.manager}" using ${conflict.apiVersion}`;
    byManager.set(key, [...(byManager.get(key) ?? []), conflict]);
  }
  const described = (path: FieldPath) => `.${path.join('.')}`;
  const parts = [...byManager.entries()].map(([who, list]) =>
    list.length === 1
      ? `conflict with ${who}: ${described(list[0]?.path ?? [])}`
      : `conflicts with ${who}:\n${list.map((item) => `- ${described(item.path)}`).join('\n')}`,
  );
  const count = conflicts.length;
  return new KubeApiError(
    409,
    'Conflict',
    `Apply failed with ${count} conflict${count === 1 ? '' : 's'}: ${parts.join('\n')}`,
    {
      causes: conflicts.map((conflict) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${conflict.manager}" using ${conflict.apiVersion}`,
        field: described(conflict.path),
      })),
    },
  );
}

/**
 * Server-side apply of `applied` by `manager` onto `current` (undefined: the object is created).
 * The applied fields are set; fields the manager applied before and no longer does are removed
 * unless someone else owns them. A field another manager owns with a different value is a 409
 * conflict naming both, unless `force` moves it to this manager. Answers `current` itself when
 * applying changes nothing.
 */
export function applyConfiguration(
  current: JsonObject | undefined,
  applied: JsonObject,
  who: ManagerIdentity,
  force: boolean,
): JsonObject {
  const appliedPaths = fieldsOf(applied);
  const mine = entry(who.manager, 'Apply', who.apiVersion, who.time, appliedPaths);
  if (current === undefined) {
    const created = cloneJson(applied);
    delete created.status;
    return setManagedFields(created, [mine]);
  }
  const before = entriesOf(current);
  const isOwn = (candidate: ManagedFieldsEntry) =>
    candidate.manager === who.manager &&
    candidate.operation === 'Apply' &&
    candidate.subresource === undefined;
  const differs = (path: FieldPath) => !jsonEqual(valueAt(applied, path), valueAt(current, path));
  const conflicts: Conflict[] = [];
  for (const other of before.filter(
    (candidate) => !isOwn(candidate) && candidate.subresource === undefined,
  )) {
    for (const owned of fromFieldsV1(other.fieldsV1)) {
      for (const path of appliedPaths) {
        if (overlaps(owned, path) && differs(path)) {
          conflicts.push({ manager: other.manager, apiVersion: other.apiVersion, path });
        }
      }
    }
  }
  if (conflicts.length > 0 && !force) throw conflictError(conflicts);

  const merged = cloneJson(current);
  for (const path of appliedPaths) setAt(merged, path, valueAt(applied, path));
  const others = before
    .filter((candidate) => !isOwn(candidate))
    .map((candidate) =>
      force
        ? withoutPaths(candidate, (path) =>
            appliedPaths.some((applied) => overlaps(path, applied) && differs(applied)),
          )
        : candidate,
    )
    .filter((candidate) => !isEmpty(candidate));
  const ownedByOthers = others.flatMap((candidate) => fromFieldsV1(candidate.fieldsV1));
  const previouslyApplied = before.filter(isOwn).flatMap((candidate) => fromFieldsV1(candidate.fieldsV1));
  for (const path of previouslyApplied) {
    const stillApplied = appliedPaths.some((other) => overlaps(path, other));
    const ownedElsewhere = ownedByOthers.some((other) => overlaps(path, other));
    if (!stillApplied && !ownedElsewhere) removeAt(merged, path);
  }
  const result = setManagedFields(merged, [...others, mine]);
  return jsonEqual(withoutTimes(result), withoutTimes(current)) ? current : result;
}

/** The object with the managers' timestamps blanked: equal to another when only the times differ. */
function withoutTimes(object: JsonObject): JsonObject {
  const copy = cloneJson(object);
  setManagedFields(
    copy,
    entriesOf(copy).map((candidate) => ({ ...candidate, time: '' })),
  );
  return copy;
}
