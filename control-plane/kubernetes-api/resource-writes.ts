import { isJsonObject, type JsonObject } from '../json-value.js';
import { applyMergePatch } from '../merge-patch.js';
import { isStoreError, type KubeObject } from '../types.js';
import { timestamp } from '../object-meta.js';
import { authorize, sendObject, visibleTo, type ApiContext, type ResourceCall } from './api-context.js';
import { parseFieldSelector } from './field-selector.js';
import { applyJsonPatch } from './json-patch.js';
import { badRequest, deletedStatus, invalid, methodNotAllowed, unsupportedMediaType } from './kube-status.js';
import { applyConfiguration, recordUpdate, type ManagerIdentity } from './managed-fields.js';
import { contentTypeOf } from './media-types.js';
import { decodeBody, optionalBody } from './request-body.js';
import { PROTOBUF_TYPE } from './protobuf-objects.js';
import {
  defaultFieldManager,
  deleteOptionsOf,
  fieldManagerOf,
  fieldValidationOf,
  isDryRun,
  labelSelectorOf,
  queryBoolean,
  queryValue,
} from './request-options.js';
import { listMatching } from './resource-reads.js';
import { checkBody, sendWarnings } from './unknown-fields.js';

const OBJECT_TYPES = ['application/json', 'application/yaml'];
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];
/** Read-modify-write attempts of a patch that did not pin a resourceVersion, before the 409 is passed on. */
const PATCH_ATTEMPTS = 5;

function metadataOf(object: JsonObject): JsonObject {
  if (object.metadata === undefined) object.metadata = {};
  if (!isJsonObject(object.metadata)) throw badRequest('metadata must be an object');
  return object.metadata;
}

/** Puts the path's namespace on the body; a body naming another one is a 400. */
function placeInNamespace(call: ResourceCall, object: JsonObject): void {
  if (!call.resource.descriptor.namespaced) return;
  const metadata = metadataOf(object);
  if (
    metadata.namespace !== undefined &&
    metadata.namespace !== '' &&
    metadata.namespace !== call.namespace
  ) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  metadata.namespace = call.namespace;
}

function requireName(call: ResourceCall, object: JsonObject): void {
  const metadata = metadataOf(object);
  if (metadata.name === undefined || metadata.name === '') metadata.name = call.name;
  if (metadata.name !== call.name) {
    throw badRequest(
      `the name of the object (${String(metadata.name)}) does not match the name on the URL (${call.name ?? ''})`,
    );
  }
}

function managerOf(context: ApiContext, call: ResourceCall): ManagerIdentity {
  return {
    manager: fieldManagerOf(call.req) ?? defaultFieldManager(call.req),
    apiVersion: call.resource.apiVersion,
    time: timestamp(context.now()),
  };
}

/** JSON or YAML; a built-in kind also as the protobuf kubectl sends it. */
function requireObjectType(call: ResourceCall, contentType: string): void {
  const accepted = call.resource.builtIn ? [...OBJECT_TYPES, PROTOBUF_TYPE] : OBJECT_TYPES;
  if (contentType !== '' && !accepted.includes(contentType))
    throw unsupportedMediaType(contentType, OBJECT_TYPES);
}

export async function createObject(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'create');
  if (call.resource.descriptor.namespaced && call.namespace === undefined) throw methodNotAllowed();
  const contentType = contentTypeOf(call.req.headers['content-type']);
  requireObjectType(call, contentType);
  const checked = checkBody(call.resource, decodeBody(call.req, contentType), fieldValidationOf(call.req));
  placeInNamespace(call, checked.object);
  const tracked = recordUpdate(undefined, checked.object, managerOf(context, call));
  const created = await context.store.create(call.resource.descriptor, tracked as unknown as KubeObject, {
    dryRun: isDryRun(call.req),
    fieldValidation: checked.storeValidation,
  });
  sendWarnings(call.res, checked.warnings);
  sendObject(call, 201, created, context.now());
}

export async function updateObject(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'update');
  const contentType = contentTypeOf(call.req.headers['content-type']);
  requireObjectType(call, contentType);
  const checked = checkBody(call.resource, decodeBody(call.req, contentType), fieldValidationOf(call.req));
  const { object } = checked;
  requireName(call, object);
  placeInNamespace(call, object);
  const { descriptor } = call.resource;
  const resourceVersion = metadataOf(object).resourceVersion;
  if (!call.resource.builtIn && (resourceVersion === undefined || resourceVersion === '')) {
    throw invalid(descriptor, call.name ?? '', [
      {
        field: 'metadata.resourceVersion',
        reason: 'FieldValueInvalid',
        message: 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      },
    ]);
  }
  const options = { dryRun: isDryRun(call.req), fieldValidation: checked.storeValidation };
  let written: KubeObject;
  if (call.subresource === 'status') {
    written = await context.store.updateStatus(descriptor, object as unknown as KubeObject, options);
  } else {
    const current = await context.store.get(descriptor, call.namespace, call.name ?? '');
    const tracked = recordUpdate(current as unknown as JsonObject, object, managerOf(context, call));
    written = await context.store.update(descriptor, tracked as unknown as KubeObject, options);
  }
  sendWarnings(call.res, checked.warnings);
  sendObject(call, 200, written, context.now());
}

/** The patched object for the non-apply patch types; a strategic merge patch only for built-in kinds. */
function patchFunction(
  call: ResourceCall,
  contentType: string,
): ((current: unknown, patch: unknown) => unknown) | undefined {
  switch (contentType) {
    case 'application/merge-patch+json':
      return applyMergePatch;
    case 'application/json-patch+json':
      return applyJsonPatch;
    case 'application/strategic-merge-patch+json':
      if (!call.resource.builtIn) return undefined;
      return (current, patch) => {
        const directive = JSON.stringify(patch).match(/"(\$[A-Za-z/]+[^"]*)"\s*:/);
        if (directive) throw badRequest(`strategic merge patch directive ${directive[1]} is not supported`);
        return applyMergePatch(current, patch);
      };
    default:
      return undefined;
  }
}

function isStale(error: unknown): boolean {
  return isStoreError(error, 'Conflict') && error.message.includes('the object has been modified');
}

export async function patchObject(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'patch');
  const contentType = contentTypeOf(call.req.headers['content-type']);
  if (contentType === 'application/apply-patch+yaml') return applyObject(context, call);
  const patchWith = patchFunction(call, contentType);
  if (!patchWith) throw unsupportedMediaType(contentType, PATCH_TYPES);
  const patch = decodeBody(call.req, contentType);
  const mode = fieldValidationOf(call.req);
  const dryRun = isDryRun(call.req);
  const who = managerOf(context, call);
  const { descriptor } = call.resource;
  for (let attempt = 1; ; attempt += 1) {
    const current = (await context.store.get(
      descriptor,
      call.namespace,
      call.name ?? '',
    )) as unknown as JsonObject;
    const patched = patchWith(current, patch);
    const checked = checkBody(call.resource, patched, mode);
    const metadata = metadataOf(checked.object);
    const stored = metadataOf(current);
    if (metadata.name !== stored.name || metadata.namespace !== stored.namespace) {
      throw badRequest(
        `a patch cannot change the name or namespace of ${descriptor.plural} "${call.name ?? ''}"`,
      );
    }
    if (metadata.resourceVersion === undefined || metadata.resourceVersion === null) {
      metadata.resourceVersion = stored.resourceVersion;
    }
    const pinned = metadata.resourceVersion !== stored.resourceVersion;
    const options = { dryRun, fieldValidation: checked.storeValidation };
    try {
      const written =
        call.subresource === 'status'
          ? await context.store.updateStatus(descriptor, checked.object as unknown as KubeObject, options)
          : await context.store.update(
              descriptor,
              recordUpdate(current, checked.object, who) as unknown as KubeObject,
              options,
            );
      sendWarnings(call.res, checked.warnings);
      sendObject(call, 200, written, context.now());
      return;
    } catch (error) {
      if (pinned || !isStale(error) || attempt >= PATCH_ATTEMPTS) throw error;
    }
  }
}

/** Server-side apply (`application/apply-patch+yaml`): creates the object when absent, merges with field ownership otherwise. */
async function applyObject(context: ApiContext, call: ResourceCall): Promise<void> {
  if (call.subresource === 'status') {
    throw unsupportedMediaType('application/apply-patch+yaml on the status subresource', [
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);
  }
  const { descriptor } = call.resource;
  if (fieldManagerOf(call.req) === undefined) {
    throw invalid(descriptor, call.name ?? '', [
      {
        field: 'fieldManager',
        reason: 'FieldValueRequired',
        message: 'fieldManager: Required value: is required for apply patch',
      },
    ]);
  }
  const body = decodeBody(call.req, 'application/apply-patch+yaml');
  if (!isJsonObject(body) || typeof body.apiVersion !== 'string' || typeof body.kind !== 'string') {
    throw badRequest('the applied configuration must be an object that sets apiVersion and kind');
  }
  const checked = checkBody(call.resource, body, fieldValidationOf(call.req));
  const applied = checked.object;
  requireName(call, applied);
  placeInNamespace(call, applied);
  const pinnedVersion = metadataOf(applied).resourceVersion;
  const force = queryBoolean(call.req, 'force');
  const options = { dryRun: isDryRun(call.req), fieldValidation: checked.storeValidation };
  const who = managerOf(context, call);
  for (let attempt = 1; ; attempt += 1) {
    let current: JsonObject | undefined;
    try {
      current = (await context.store.get(
        descriptor,
        call.namespace,
        call.name ?? '',
      )) as unknown as JsonObject;
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
    }
    try {
      if (current === undefined) {
        const created = await context.store.create(
          descriptor,
          applyConfiguration(undefined, applied, who, force) as unknown as KubeObject,
          options,
        );
        sendWarnings(call.res, checked.warnings);
        sendObject(call, 201, created, context.now());
        return;
      }
      const merged = applyConfiguration(current, applied, who, force);
      const currentVersion = metadataOf(current).resourceVersion;
      let written: KubeObject;
      if (merged === current && (pinnedVersion === undefined || pinnedVersion === currentVersion)) {
        written = current as unknown as KubeObject;
      } else {
        metadataOf(merged).resourceVersion = pinnedVersion ?? currentVersion;
        written = await context.store.update(descriptor, merged as unknown as KubeObject, options);
      }
      sendWarnings(call.res, checked.warnings);
      sendObject(call, 200, written, context.now());
      return;
    } catch (error) {
      const retry = (isStale(error) || isStoreError(error, 'AlreadyExists')) && pinnedVersion === undefined;
      if (!retry || attempt >= PATCH_ATTEMPTS) throw error;
    }
  }
}

export async function deleteObject(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'delete');
  const options = deleteOptionsOf(call.req, optionalBody(call.req));
  const { descriptor } = call.resource;
  const result = await context.store.delete(descriptor, call.namespace, call.name ?? '', options);
  if (result.metadata.deletionTimestamp !== undefined) {
    sendObject(call, 200, result, context.now());
    return;
  }
  const details = { name: result.metadata.name, group: descriptor.group, kind: descriptor.plural };
  call.res.json(
    result.metadata.uid === undefined
      ? deletedStatus(details)
      : deletedStatus({ ...details, uid: result.metadata.uid }),
  );
}

export async function deleteCollection(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'deletecollection');
  const options = deleteOptionsOf(call.req, optionalBody(call.req));
  const fields = parseFieldSelector(queryValue(call.req, 'fieldSelector'), call.resource.descriptor);
  const { descriptor, apiVersion } = call.resource;
  const list = await listMatching(
    context,
    call.resource,
    {
      namespace: call.namespace ?? fields.namespace,
      labelSelector: labelSelectorOf(call.req),
      limit: 0,
      continue: undefined,
    },
    (object) => fields.matches(object) && visibleTo(call, object),
  );
  const deleted: KubeObject[] = [];
  for (const item of list.items) {
    try {
      deleted.push(
        await context.store.delete(descriptor, item.metadata.namespace, item.metadata.name, options),
      );
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
    }
  }
  call.res.json({ apiVersion, kind: `${descriptor.kind}List`, metadata: {}, items: deleted });
}
