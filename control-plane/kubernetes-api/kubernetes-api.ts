import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { EmbeddedStore } from '../embedded-store/index.js';
import type { Logger } from '../../observability/logger.js';
import { isNamespaceResource, type ApiContext, type ResourceCall } from './api-context.js';
import {
  combineKubeAuthenticators,
  isGranted,
  type KubeAuthenticator,
  type KubeIdentity,
} from './authentication.js';
import { rulesFor, type ScopedRule } from './authorization.js';
import { KUBERNETES_API_KINDS, REVIEW_KINDS } from '../built-in-kinds.js';
import { createReview, createToken } from './reviews.js';
import { serviceAccountAuthenticator } from './service-account-tokens.js';
import {
  aggregatedDiscovery,
  AGGREGATED_DISCOVERY_TYPE,
  coreVersions,
  groupDocument,
  groupList,
  resourceList,
  versionInfo,
} from './discovery.js';
import {
  badRequest,
  entityTooLarge,
  methodNotAllowed,
  notAcceptable,
  notFoundPath,
  statusOf,
  unauthorized,
} from './kube-status.js';
import { negotiate, parseMediaRanges, wantsAggregatedDiscovery } from './media-types.js';
import { createNamespace, deleteNamespace, getNamespace, listNamespaces } from './namespaces.js';
import { OpenApiDocuments } from './openapi-documents.js';
import { queryBoolean } from './request-options.js';
import { getObject, listObjects, watchObjects } from './resource-reads.js';
import {
  createObject,
  deleteCollection,
  deleteObject,
  patchObject,
  updateObject,
} from './resource-writes.js';
import { ResourceCatalog } from './served-resources.js';
import { convertingStore, EVENTS_V1_CONVERSION } from './converted-kinds.js';

/** Kinds served in a form of their own over a stored kind. */
const CONVERTED_KINDS = [EVENTS_V1_CONVERSION];

export interface KubernetesApiDependencies {
  /** The embedded store; it must serve `KUBERNETES_API_KINDS` besides the custom resources. */
  store: EmbeddedStore;
  logger: Logger;
  /** The platform's credentials; ServiceAccount tokens this API signs are accepted besides. */
  authenticate: KubeAuthenticator;
  /**
   * The key ServiceAccount tokens are signed with (32 bytes or more). Without one, a random key:
   * tokens then last as long as the process.
   */
  tokenSigningKey?: Uint8Array;
  now?: () => Date;
  /** The largest request body accepted; 3 MiB by default, as a kube-apiserver. */
  bodyLimitBytes?: number;
}

const DEFAULT_BODY_LIMIT = 3 * 1024 * 1024;

type Handler = (context: ApiContext, call: ResourceCall) => Promise<void>;

interface Routes {
  collection: Partial<Record<string, Handler>>;
  item: Partial<Record<string, Handler>>;
  status: Partial<Record<string, Handler>>;
  token: Partial<Record<string, Handler>>;
}

const RESOURCE_ROUTES: Routes = {
  collection: { GET: listOrWatch(listObjects), POST: createObject, DELETE: deleteCollection },
  item: { GET: getObject, PUT: updateObject, PATCH: patchObject, DELETE: deleteObject },
  status: { GET: getObject, PUT: updateObject, PATCH: patchObject },
  token: { POST: createToken },
};

const NAMESPACE_ROUTES: Routes = {
  collection: { GET: listOrWatch(listNamespaces), POST: createNamespace },
  item: { GET: getNamespace, PUT: updateObject, PATCH: patchObject, DELETE: deleteNamespace },
  status: {},
  token: {},
};

const REVIEW_ROUTES: Routes = { collection: { POST: createReview }, item: {}, status: {}, token: {} };

function listOrWatch(list: Handler): Handler {
  return (context, call) =>
    queryBoolean(call.req, 'watch') ? watchObjects(context, call) : list(context, call);
}

function segmentsOf(req: Request): string[] {
  try {
    return req.path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw badRequest('the request path is not valid');
  }
}

/**
 * The embedded control plane over the Kubernetes REST API, mounted by the app at `/k8s`: enough
 * of discovery, OpenAPI, CRUD, patch, watch and Table output that kubectl and
 * @kubernetes/client-node work against it. Every error is a `Status`.
 */
export function kubernetesApi(deps: KubernetesApiDependencies): express.Router {
  const kinds = deps.store.kinds();
  const missing = KUBERNETES_API_KINDS.filter(
    (needed) => !kinds.some((kind) => kind.group === needed.group && kind.plural === needed.plural),
  );
  if (missing.length > 0) {
    throw new Error(
      `the Kubernetes API needs the store to serve ${missing.map((kind) => kind.kind).join(', ')}: open it with KUBERNETES_API_KINDS among its kinds`,
    );
  }
  const catalog = new ResourceCatalog(
    [...kinds, ...CONVERTED_KINDS.map((conversion) => conversion.served)],
    REVIEW_KINDS,
  );
  const now = deps.now ?? (() => new Date());
  const tokenKey = deps.tokenSigningKey ?? randomBytes(32);
  const context: ApiContext = {
    store: convertingStore(deps.store, CONVERTED_KINDS),
    catalog,
    logger: deps.logger,
    now,
    tokenKey,
    authenticate: combineKubeAuthenticators(
      deps.authenticate,
      serviceAccountAuthenticator(deps.store, tokenKey, now),
    ),
  };
  const openApi = new OpenApiDocuments(catalog);
  const bodyLimit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;

  const router = express.Router();
  router.use(express.raw({ type: () => true, limit: bodyLimit }));

  const discovery = (req: Request, res: Response, segments: string[]): boolean => {
    const [root, second, third] = segments;
    if (req.method !== 'GET') return false;
    const aggregated = wantsAggregatedDiscovery(req.headers.accept);
    if (segments.length === 1 && (root === 'api' || root === 'apis') && aggregated) {
      res.type(AGGREGATED_DISCOVERY_TYPE).send(JSON.stringify(aggregatedDiscovery(catalog, root === 'api')));
      return true;
    }
    let document: Record<string, unknown> | undefined;
    if (root === 'api' && segments.length === 1) document = coreVersions(req.hostname);
    else if (root === 'api' && segments.length === 2 && second === 'v1')
      document = resourceList(catalog, '', 'v1');
    else if (root === 'apis' && segments.length === 1) document = groupList(catalog);
    else if (root === 'apis' && segments.length === 2) document = groupDocument(catalog, second ?? '') ?? {};
    else if (
      root === 'apis' &&
      segments.length === 3 &&
      catalog.servesGroupVersion(second ?? '', third ?? '')
    ) {
      document = resourceList(catalog, second ?? '', third ?? '');
    }
    if (document === undefined || Object.keys(document).length === 0) return false;
    res.json(document);
    return true;
  };

  const openApiDocument = (req: Request, res: Response, segments: string[]): boolean => {
    if (segments[0] !== 'openapi' || req.method !== 'GET') return false;
    const path = segments.slice(2).join('/');
    if (segments[1] === 'v2' && segments.length === 2) {
      const ranges = parseMediaRanges(req.headers.accept);
      const json =
        ranges.length === 0 ||
        ranges.some((range) => ['application/json', '*/*', 'application/*'].includes(range.type));
      if (!json) throw notAcceptable(['application/json']);
      res.json(openApi.swagger());
      return true;
    }
    if (segments[1] !== 'v3') return false;
    const document = segments.length === 2 ? openApi.index() : openApi.groupVersion(path);
    if (!document) return false;
    // As kube-apiserver: the URL the index names carries the content's hash and may be kept for
    // good; a stale hash is sent on to the current one; a plain URL is revalidated by ETag.
    const hash = segments.length > 2 && typeof req.query.hash === 'string' ? req.query.hash : undefined;
    if (hash !== undefined && hash !== document.hash) {
      res.set('Cache-Control', 'no-cache, private');
      res.redirect(301, `/openapi/v3/${path}?hash=${document.hash}`);
      return true;
    }
    res.set(
      'Cache-Control',
      hash === undefined ? 'no-cache, private' : 'public, immutable, max-age=31536000',
    );
    res.set('ETag', `"${document.hash}"`);
    // Express answers 304 Not Modified itself when If-None-Match names this ETag.
    res.type('application/json').send(document.body);
    return true;
  };

  /** The handler and call for a resource path; undefined when the path names no served resource. */
  const resolve = (
    req: Request,
    res: Response,
    identity: KubeIdentity,
    rules: readonly ScopedRule[],
    segments: string[],
  ): { handler: Handler; call: ResourceCall } | undefined => {
    const [root, ...afterRoot] = segments;
    let group: string;
    let version: string;
    let rest: string[];
    if (root === 'api') {
      group = '';
      [version = '', ...rest] = afterRoot;
    } else if (root === 'apis') {
      [group = '', version = '', ...rest] = afterRoot;
    } else {
      return undefined;
    }
    let namespace: string | undefined;
    let parts = rest;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      parts = rest.slice(2);
    }
    const [plural = '', name, subresource, ...extra] = parts;
    const resource = catalog.find(group, version, plural);
    if (!resource || extra.length > 0) return undefined;
    const { namespaced } = resource.descriptor;
    if (namespaced !== (namespace !== undefined) && !(namespaced && name === undefined)) return undefined;
    const served = resource.subresources.find((entry) => entry.name === subresource);
    if (subresource !== undefined && served === undefined) return undefined;
    const routes = resource.review
      ? REVIEW_ROUTES
      : isNamespaceResource(resource)
        ? NAMESPACE_ROUTES
        : RESOURCE_ROUTES;
    const table =
      served !== undefined ? routes[served.name] : name !== undefined ? routes.item : routes.collection;
    const allNamespaces = namespaced && namespace === undefined;
    const handler = allNamespaces && req.method !== 'GET' ? undefined : table[req.method];
    if (!handler) throw methodNotAllowed();
    negotiate(req.headers.accept);
    const call: ResourceCall = {
      req,
      res,
      identity,
      rules,
      resource,
      namespace,
      name,
      subresource: served?.name,
    };
    return { handler, call };
  };

  router.use(async (req: Request, res: Response) => {
    const segments = segmentsOf(req);
    if (segments.length === 1 && segments[0] === 'version' && req.method === 'GET') {
      res.json(versionInfo());
      return;
    }
    const identity = await context.authenticate(req);
    if (identity === undefined) throw unauthorized();
    if (discovery(req, res, segments) || openApiDocument(req, res, segments)) return;
    const rules = isGranted(identity) ? [] : await rulesFor(deps.store, identity);
    const resolved = resolve(req, res, identity, rules, segments);
    if (!resolved) throw notFoundPath();
    await resolved.handler(context, resolved.call);
  });

  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const parserError = error as { type?: string; message?: string };
    let failure = error;
    if (parserError.type === 'entity.too.large') failure = entityTooLarge(bodyLimit);
    else if (typeof parserError.type === 'string')
      failure = badRequest(parserError.message ?? 'the request body could not be read');
    const [root, group] = req.path.split('/').filter(Boolean);
    const status = statusOf(failure, root === 'apis' ? group : undefined);
    if (status.code >= 500) (req.log ?? deps.logger).error({ err: error }, 'Kubernetes API request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status.code).json(status);
  });
  return router;
}
