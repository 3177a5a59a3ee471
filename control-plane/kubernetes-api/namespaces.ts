import { isJsonObject } from '../json-value.js';
import { isGranted } from './authentication.js';
import { parseLabelSelector } from '../label-selector.js';
import { dns1123LabelProblem } from '../label-syntax.js';
import { isStoreError, type KubeObject } from '../types.js';
import {
  authorize,
  sendList,
  sendObject,
  visibleTo,
  type ApiContext,
  type ResourceCall,
} from './api-context.js';
import { parseFieldSelector } from './field-selector.js';
import { badRequest, deletedStatus, invalid, KubeApiError } from './kube-status.js';
import { contentTypeOf } from './media-types.js';
import { decodeBody, optionalBody } from './request-body.js';
import { deleteOptionsOf, isDryRun, labelSelectorOf, queryValue } from './request-options.js';
import { listMatching } from './resource-reads.js';

/**
 * Namespaces of the embedded control plane. The store has no namespace objects of its own: a
 * namespace exists when it was created here (recorded as a `Namespace` object) or when objects
 * live in it, and a caller limited to some namespaces always sees their own.
 */

const ALL = { namespace: undefined, labelSelector: undefined, limit: 0, continue: undefined };

function namespaceObject(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] } };
}

function notFound(name: string): KubeApiError {
  return new KubeApiError(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' });
}

/** Every namespace some object of a namespaced kind lives in. */
async function namespacesInUse(context: ApiContext): Promise<Set<string>> {
  const names = new Set<string>();
  for (const resource of context.catalog.all()) {
    if (!resource.descriptor.namespaced) continue;
    const list = await listMatching(context, resource, ALL, () => true);
    for (const item of list.items) if (item.metadata.namespace) names.add(item.metadata.namespace);
  }
  return names;
}

/** Namespaces that exist without a record: in use, or the caller's own. */
async function impliedNamespaces(context: ApiContext, call: ResourceCall): Promise<Set<string>> {
  const names = await namespacesInUse(context);
  const { identity } = call;
  if (isGranted(identity) && identity.namespaces !== 'all')
    for (const name of identity.namespaces) names.add(name);
  return names;
}

export async function listNamespaces(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'list');
  const labelSelector = labelSelectorOf(call.req);
  const labelsMatch = parseLabelSelector(labelSelector);
  const fields = parseFieldSelector(queryValue(call.req, 'fieldSelector'));
  const keep = (object: KubeObject) =>
    fields.matches(object) && visibleTo(call, object) && labelsMatch(object.metadata.labels);
  const recorded = await listMatching(context, call.resource, ALL, keep);
  const recordedNames = new Set(recorded.items.map((item) => item.metadata.name));
  const implied = [...(await impliedNamespaces(context, call))]
    .filter((name) => !recordedNames.has(name))
    .map(namespaceObject)
    .filter(keep);
  const items = [...recorded.items, ...implied].sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
  sendList(call, items, { resourceVersion: recorded.resourceVersion }, context.now());
}

export async function getNamespace(context: ApiContext, call: ResourceCall): Promise<void> {
  const name = call.name ?? '';
  authorize(call, 'get');
  try {
    sendObject(call, 200, await context.store.get(call.resource.descriptor, undefined, name), context.now());
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
    if (!(await impliedNamespaces(context, call)).has(name)) throw notFound(name);
    sendObject(call, 200, namespaceObject(name), context.now());
  }
}

export async function createNamespace(context: ApiContext, call: ResourceCall): Promise<void> {
  const contentType = contentTypeOf(call.req.headers['content-type']);
  const body = decodeBody(call.req, contentType);
  if (!isJsonObject(body) || (body.metadata !== undefined && !isJsonObject(body.metadata))) {
    throw badRequest('the body must be a JSON object describing a Namespace');
  }
  const metadata = isJsonObject(body.metadata) ? body.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const problem = name === '' ? 'Required value' : dns1123LabelProblem(name);
  if (problem !== undefined) {
    const message =
      name === '' ? 'metadata.name: Required value' : `metadata.name: Invalid value: "${name}": ${problem}`;
    throw invalid(call.resource.descriptor, name, [
      { field: 'metadata.name', reason: name === '' ? 'FieldValueRequired' : 'FieldValueInvalid', message },
    ]);
  }
  authorize(call, 'create', name);
  const object: KubeObject = {
    ...namespaceObject(name),
    metadata: { ...metadata, name } as KubeObject['metadata'],
  };
  const created = await context.store.create(call.resource.descriptor, object, {
    dryRun: isDryRun(call.req),
  });
  sendObject(call, 201, created, context.now());
}

/**
 * Deletes every object in the namespace, then its record. Objects held by finalizers stay,
 * marked, and keep the namespace listed until they are gone, as a terminating namespace would.
 */
export async function deleteNamespace(context: ApiContext, call: ResourceCall): Promise<void> {
  const name = call.name ?? '';
  authorize(call, 'delete');
  const options = deleteOptionsOf(call.req, optionalBody(call.req));
  // Preconditions name the namespace (its uid, say): they do not hold for the objects in it.
  const { preconditions: _preconditions, ...contentOptions } = options;
  let found = false;
  for (const resource of context.catalog.all()) {
    if (!resource.descriptor.namespaced) continue;
    const list = await listMatching(context, resource, { ...ALL, namespace: name }, () => true);
    for (const item of list.items) {
      found = true;
      try {
        await context.store.delete(resource.descriptor, name, item.metadata.name, contentOptions);
      } catch (error) {
        if (!isStoreError(error, 'NotFound')) throw error;
      }
    }
  }
  let uid: string | undefined;
  try {
    uid = (await context.store.delete(call.resource.descriptor, undefined, name, options)).metadata.uid;
  } catch (error) {
    if (!isStoreError(error, 'NotFound') || !found)
      throw isStoreError(error, 'NotFound') ? notFound(name) : error;
  }
  const details = { name, group: '', kind: 'namespaces' };
  call.res.json(deletedStatus(uid === undefined ? details : { ...details, uid }));
}
