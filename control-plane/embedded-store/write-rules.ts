import { randomUUID } from 'node:crypto';
import type { KindDescriptor } from '../kind-descriptor.js';
import { badRequest, cause, invalid, staleResourceVersion } from '../store-errors.js';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../json-value.js';
import { generatedName, metadataCauses, pruneMetadata, SERVER_FIELDS, timestamp } from '../object-meta.js';
import type { SchemaCheck } from '../schema-validator.js';
import type { StoreErrorCause } from '../types.js';

/**
 * The decisions of every write, as pure functions over JSON objects: what the stored object
 * becomes, which fields the client may not touch, when `generation` moves. The store applies
 * them inside its transaction.
 */

/** A kind this store serves, with what it needs at hand to check writes. */
export interface ServedKind {
  descriptor: KindDescriptor;
  /** `widgets.example.dev`: the key of its objects in the tables. */
  resource: string;
  apiVersion: string;
  schema: SchemaCheck | undefined;
}

/**
 * How to treat fields the schema does not declare, as kubectl's `--validate` does:
 * `Ignore` drops them (what a structural CRD does), `Strict` rejects the write naming them.
 */
export type FieldValidation = 'Strict' | 'Ignore';

/** Metadata of a decoded object; `decodeBody` guarantees it is an object. */
export function metaOf(object: JsonObject): JsonObject {
  return object.metadata as JsonObject;
}

export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function finalizersOf(object: JsonObject): string[] {
  const finalizers = metaOf(object).finalizers;
  return Array.isArray(finalizers)
    ? finalizers.filter((entry): entry is string => typeof entry === 'string')
    : [];
}

/**
 * A private copy of a request body with `apiVersion` and `kind` checked and filled, and every
 * field the kind does not declare removed (or, with `Strict`, a `BadRequest` naming them).
 */
export function decodeBody(
  kind: ServedKind,
  body: unknown,
  fieldValidation: FieldValidation = 'Ignore',
): JsonObject {
  const { descriptor } = kind;
  if (!isJsonObject(body)) throw badRequest(`the body must be a JSON object describing a ${descriptor.kind}`);
  const object = cloneJson(body);
  if (object.apiVersion !== undefined && object.apiVersion !== kind.apiVersion) {
    throw badRequest(
      `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${kind.apiVersion})`,
    );
  }
  if (object.kind !== undefined && object.kind !== descriptor.kind) {
    throw badRequest(
      `the kind in the data (${String(object.kind)}) does not match the expected kind (${descriptor.kind})`,
    );
  }
  object.apiVersion = kind.apiVersion;
  object.kind = descriptor.kind;
  if (object.metadata === undefined) object.metadata = {};
  if (!isJsonObject(object.metadata)) throw badRequest('metadata must be an object');
  const unknown = [...pruneMetadata(object.metadata), ...(kind.schema?.prune(object) ?? [])];
  if (fieldValidation === 'Strict' && unknown.length > 0) {
    throw badRequest(
      `${descriptor.kind} in version "${descriptor.version}" cannot be handled as a ${descriptor.kind}: strict decoding error: ${unknown
        .map((field) => `unknown field "${field}"`)
        .join(', ')}`,
    );
  }
  if (!descriptor.namespaced) delete object.metadata.namespace;
  return object;
}

/** Throws `Invalid` with every metadata and schema cause of `object`; applies schema defaults. */
export function validateObject(kind: ServedKind, object: JsonObject, extra: StoreErrorCause[] = []): void {
  const causes = [...extra, ...metadataCauses(metaOf(object), kind.descriptor.namespaced)];
  causes.push(...(kind.schema?.validate(object) ?? []));
  if (causes.length > 0) {
    throw invalid(kind.descriptor, String(metaOf(object).name ?? metaOf(object).generateName ?? ''), causes);
  }
}

/**
 * The object as created: status dropped (the status subresource owns it), server fields set,
 * generation 1, a name from `generateName` when there is none. `resourceVersion` is left for the
 * store to stamp.
 */
export function prepareCreate(kind: ServedKind, decoded: JsonObject, now: Date): JsonObject {
  const object = decoded;
  delete object.status;
  const metadata = metaOf(object);
  for (const field of SERVER_FIELDS) delete metadata[field];
  const prefix = stringField(metadata, 'generateName');
  const generated = stringField(metadata, 'name') === undefined && prefix !== undefined;
  if (generated) metadata.name = generatedName(prefix);
  const causes = metadataCauses(metadata, kind.descriptor.namespaced).map((entry) =>
    generated && entry.field === 'metadata.name'
      ? {
          ...entry,
          field: 'metadata.generateName',
          message: entry.message.replace('metadata.name', 'metadata.generateName'),
        }
      : entry,
  );
  if (causes.length > 0) throw invalid(kind.descriptor, String(metadata.name ?? ''), causes);
  metadata.uid = randomUUID();
  metadata.generation = 1;
  metadata.creationTimestamp = timestamp(now);
  validateObject(kind, object);
  return object;
}

/** Another random name for a `generateName` create whose first pick was taken. */
export function renameGenerated(object: JsonObject): void {
  const metadata = metaOf(object);
  const prefix = stringField(metadata, 'generateName');
  if (prefix !== undefined) metadata.name = generatedName(prefix);
}

/** 409 when the client names a resourceVersion and it is not the stored one; none means unconditional. */
export function checkResourceVersion(kind: ServedKind, requested: unknown, existing: JsonObject): void {
  if (requested === undefined || requested === null || requested === '') return;
  if (typeof requested !== 'string' || !/^\d+$/.test(requested)) {
    throw badRequest(`invalid resource version: ${JSON.stringify(requested)}`);
  }
  const name = String(metaOf(existing).name);
  if (requested !== metaOf(existing).resourceVersion) throw staleResourceVersion(kind.descriptor, name);
}

/** Everything but apiVersion, kind, metadata and status: what `generation` tracks. */
function contentOf(object: JsonObject): JsonObject {
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, status: _status, ...content } = object;
  return content;
}

/**
 * The object after a full update: the client's spec and metadata, the stored status, and the
 * server's fields (uid, creationTimestamp, deletionTimestamp) kept; generation bumped only when
 * the content changed. Throws `Invalid` for an immutable field changed, a finalizer added to an
 * object being deleted, or anything the schema refuses.
 */
export function prepareUpdate(kind: ServedKind, decoded: JsonObject, existing: JsonObject): JsonObject {
  const object = decoded;
  const metadata = metaOf(object);
  const stored = metaOf(existing);
  const causes: StoreErrorCause[] = [];
  const uid = metadata.uid;
  if (uid !== undefined && uid !== '' && uid !== stored.uid)
    causes.push(cause.immutable('metadata.uid', uid));
  if (stored.deletionTimestamp === undefined && metadata.deletionTimestamp !== undefined) {
    causes.push(cause.forbidden('metadata.deletionTimestamp', 'may only be set by deleting the object'));
  }
  if (stored.deletionTimestamp !== undefined) {
    const before = new Set(finalizersOf(existing));
    const added = finalizersOf(object).filter((finalizer) => !before.has(finalizer));
    if (added.length > 0) {
      causes.push(
        cause.forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
  }
  for (const field of SERVER_FIELDS) {
    if (field === 'resourceVersion') continue;
    if (stored[field] === undefined) delete metadata[field];
    else metadata[field] = stored[field];
  }
  metadata.namespace = stored.namespace;
  if (stored.namespace === undefined) delete metadata.namespace;
  delete metadata.generateName;
  if (stored.generateName !== undefined) metadata.generateName = stored.generateName;
  if (existing.status === undefined) delete object.status;
  else object.status = cloneJson(existing.status);
  validateObject(kind, object, causes);
  if (!jsonEqual(contentOf(object), contentOf(existing)))
    metadata.generation = Number(stored.generation ?? 0) + 1;
  return object;
}

/** The stored object with only its status replaced by the client's. */
export function prepareStatusUpdate(kind: ServedKind, decoded: JsonObject, existing: JsonObject): JsonObject {
  const object = cloneJson(existing);
  if (decoded.status === undefined) delete object.status;
  else object.status = decoded.status;
  validateObject(kind, object);
  return object;
}

/** True when writing `next` would change nothing: the apiserver then answers without a new revision. */
export function isUnchanged(next: JsonObject, existing: JsonObject): boolean {
  const strip = (object: JsonObject): JsonObject => ({
    ...object,
    metadata: { ...metaOf(object), resourceVersion: undefined },
  });
  return jsonEqual(strip(next), strip(existing));
}

/**
 * Marks an object for deletion: `deletionTimestamp` set once, and generation bumped the first
 * time, because controllers must see that the object's desired state has changed.
 */
export function markDeleted(existing: JsonObject, now: Date, finalizers: string[]): JsonObject {
  const object = cloneJson(existing);
  const metadata = metaOf(object);
  if (metadata.deletionTimestamp === undefined) {
    metadata.deletionTimestamp = timestamp(now);
    metadata.deletionGracePeriodSeconds = 0;
    metadata.generation = Number(metadata.generation ?? 0) + 1;
  }
  metadata.finalizers = finalizers;
  return object;
}
