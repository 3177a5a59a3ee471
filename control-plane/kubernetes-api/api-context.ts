import type { Request, Response } from 'express';
import type { KubeObject } from '../types.js';
import type { Logger } from '../../observability/logger.js';
import type { ApiStore } from './converted-kinds.js';
import { isGranted, mayUse, type KubeAuthenticator, type KubeIdentity } from './authentication.js';
import { isAllowed, type ScopedRule } from './authorization.js';
import { NAMESPACE_KIND } from '../built-in-kinds.js';
import { forbidden } from './kube-status.js';
import { negotiate } from './media-types.js';
import { queryValue } from './request-options.js';
import type { ResourceCatalog, ServedResource } from './served-resources.js';
import { includeObjectOf, partialObjectMetadata, tableOf } from './table.js';

/** What every handler of the Kubernetes API works with. */
export interface ApiContext {
  /** The embedded store, with the kinds served in another form than stored converted. */
  store: ApiStore;
  /** Every credential the API accepts, ServiceAccount tokens included. */
  authenticate: KubeAuthenticator;
  /** Signs and verifies ServiceAccount tokens. */
  tokenKey: Uint8Array;
  catalog: ResourceCatalog;
  logger: Logger;
  now: () => Date;
}

/** One request against a resource path, authenticated and resolved. */
export interface ResourceCall {
  req: Request;
  res: Response;
  identity: KubeIdentity;
  /** The RBAC rules bound to the identity (none for an identity with a namespace grant). */
  rules: readonly ScopedRule[];
  resource: ServedResource;
  /** The namespace in the path; undefined for cluster-scoped kinds and all-namespace lists. */
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | 'token' | undefined;
}

export function isNamespaceResource(resource: ServedResource): boolean {
  return (
    resource.descriptor.group === NAMESPACE_KIND.group && resource.descriptor.plural === NAMESPACE_KIND.plural
  );
}

/**
 * Refuses, before anything is read, a call the caller may not make (see `isAllowed`). As on a
 * kube-apiserver, a request about one namespace object is a request in that namespace.
 */
export function authorize(call: ResourceCall, verb: string, name = call.name): void {
  const { identity, resource } = call;
  const namespace = isNamespaceResource(resource) && name !== undefined ? name : call.namespace;
  const request = {
    verb,
    group: resource.descriptor.group,
    resource: resource.descriptor.plural,
    subresource: call.subresource,
    name,
    namespace,
  };
  if (!isAllowed(identity, call.rules, request, resource.descriptor.namespaced)) {
    throw forbidden(identity.user, { ...request, plural: request.resource, namespace: call.namespace });
  }
}

/**
 * Whether an object a list or watch found may be shown to the caller: a granted identity sees
 * its namespaces; an RBAC identity was allowed the whole list, or refused it.
 */
export function visibleTo(call: ResourceCall, object: KubeObject): boolean {
  const { identity } = call;
  if (!isGranted(identity) || identity.namespaces === 'all') return true;
  const namespace = isNamespaceResource(call.resource) ? object.metadata.name : object.metadata.namespace;
  return namespace !== undefined && mayUse(identity, namespace);
}

/** Namespaces read as a kube-apiserver shows them: always with a phase. */
export function presented(resource: ServedResource, object: KubeObject): KubeObject {
  if (!isNamespaceResource(resource)) return object;
  const phase = object.metadata.deletionTimestamp ? 'Terminating' : 'Active';
  return { ...object, spec: object.spec ?? { finalizers: ['kubernetes'] }, status: { phase } };
}

/** Writes one object in the representation the client asked for: itself, a Table row, or its metadata. */
export function sendObject(call: ResourceCall, status: number, object: KubeObject, now: Date): void {
  const shown = presented(call.resource, object);
  const representation = negotiate(call.req.headers.accept);
  let body: unknown = shown;
  if (representation === 'Table') {
    body = tableOf(call.resource, [shown], {
      includeObject: includeObjectOf(queryValue(call.req, 'includeObject')),
      now,
    });
  } else if (representation === 'PartialObjectMetadata') {
    body = partialObjectMetadata(shown);
  }
  call.res.status(status).json(body);
}

/** Writes a list in the representation the client asked for. */
export function sendList(
  call: ResourceCall,
  items: readonly KubeObject[],
  metadata: { resourceVersion: string; continue?: string },
  now: Date,
): void {
  const shown = items.map((item) => presented(call.resource, item));
  const representation = negotiate(call.req.headers.accept);
  const { descriptor, apiVersion } = call.resource;
  if (representation === 'Table') {
    call.res.json(
      tableOf(call.resource, shown, {
        includeObject: includeObjectOf(queryValue(call.req, 'includeObject')),
        now,
        ...metadata,
      }),
    );
  } else if (representation === 'PartialObjectMetadata') {
    call.res.json({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      items: shown.map(partialObjectMetadata),
    });
  } else {
    call.res.json({ apiVersion, kind: `${descriptor.kind}List`, metadata, items: shown });
  }
}
