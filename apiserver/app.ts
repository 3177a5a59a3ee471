import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import { match } from 'path-to-regexp';
import proxyAddress from 'proxy-addr';
import type { Authenticator } from '../accounts/principal.js';
import type { HttpConfig } from '../config/http.js';
import type { ObjectStore } from '../control-plane/types.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { handOverHeaders } from '../observability/http-response.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { consoleHandler } from './console-assets.js';
import { accessLog } from './middleware/access-log.js';
import { admission } from './middleware/admission.js';
import { answerError, errorHandler } from './middleware/error-handler.js';
import { RequestRateLimiter } from './middleware/rate-limit.js';
import { setSecurityHeaders } from './middleware/security-headers.js';
import { buildOpenApiDocument } from './openapi.js';
import { operationsRoutes, type OperationsServices } from './routes/operations/operations.js';
import { collectRoutes } from './routing/route-declarations.js';
import type { AreaServices, RouteDefinition, RouteModule } from './routing/route.js';
import { declaredRoutes } from './routing/router.js';
import { targetOf } from './routing/route-paths.js';
import type { WireApi } from './routing/wire-api.js';

export interface AppDependencies<A extends AreaServices = AreaServices> {
  http: HttpConfig;
  logger: Logger;
  metrics: Metrics;
  store: ObjectStore;
  database: DataPlane;
  /** The API's route modules, one per area; the operational endpoints are always served. */
  routes?: readonly RouteModule<A>[];
  /** What the modules' handlers need beyond the core services, one object for all of them. */
  services?: A;
  /**
   * APIs that speak a wire format of their own (the Vault-compatible API, Kafka Connect's), served
   * before the declared routes; they do their own authentication. A `WireApi` is served from its
   * route table off node's request and response; an express router through express.
   */
  mounts?: readonly { path: string; router: express.Router | WireApi }[];
  /** Without one, every request is anonymous and `authenticated` routes answer 401. */
  authenticator?: Authenticator;
  now?: () => Date;
  /** The moment `/health` counts uptime from; defaults to the app's creation. */
  startedAt?: Date;
  /** The built web console (`dist/console`), served to browsers at every path the API does not own. */
  consoleDirectory?: string;
}

/**
 * The REST facade as a request listener, not yet listening (see `startServer`). Route
 * declarations are checked here, so a broken declaration fails start-up. The declared routes are
 * served straight from node's request and response; express serves only the routers mounted
 * whole (the Vault-compatible API and its peers), since its per-request set-up (the request's
 * and response's prototypes swapped, a layer walk) would cost every route more than all of
 * that route's own steps.
 */
export function createApp<A extends AreaServices>(deps: AppDependencies<A>): RequestListener {
  const now = deps.now ?? (() => new Date());
  const { http, logger, metrics, store, database } = deps;

  const modules = [operationsRoutes, ...(deps.routes ?? [])] as readonly RouteModule<
    A & OperationsServices
  >[];
  const routes: RouteDefinition<A & OperationsServices>[] = collectRoutes(modules);
  const operations: OperationsServices['operations'] = {
    startedAt: deps.startedAt ?? now(),
    metricsToken: http.metricsToken,
    // The server URL is read when asked for: it follows the address bound after start-up.
    openApiDocument: () => ({ ...document, servers: [{ url: http.publicUrl.href }] }),
  };
  const document = buildOpenApiDocument(routes, {
    title: 'cloudplane API',
    version: 'v1',
    serverUrl: http.publicUrl.href,
  });

  const limiter = new RequestRateLimiter({ limits: http.rateLimit, pgPool: database.pgPool, logger, now });

  const mounted = express();
  mounted.disable('x-powered-by');
  mounted.set('trust proxy', http.trustProxy);
  // Answers are `no-store`: an ETag would only cost a hash of every body.
  mounted.set('etag', false);
  const trust = mounted.get('trust proxy fn') as (address: string, hop: number) => boolean;
  // Trusting no proxy, the peer is the client: no forwarding header needs parsing.
  const clientAddress =
    http.trustProxy === false
      ? (req: IncomingMessage) => req.socket.remoteAddress ?? ''
      : (req: IncomingMessage) => proxyAddress(req, trust);

  const declared = declaredRoutes(routes, {
    services: { ...(deps.services as A), operations, metrics, store, database, now },
    admission: admission(deps.authenticator, limiter, clientAddress),
    clientAddress,
    bodyLimitBytes: http.bodyLimitBytes,
  });
  const wireApis = (deps.mounts ?? []).flatMap((mount) => (isWireApi(mount.router) ? [mount.router] : []));
  const expressMounts = (deps.mounts ?? []).flatMap((mount) =>
    isWireApi(mount.router) ? [] : [{ path: mount.path, router: mount.router }],
  );
  for (const mount of expressMounts) mounted.use(mount.path, mount.router);
  // A path a mounted router did not answer is the declared routes' (their 404 at least).
  mounted.use((req, res, next) => {
    declared(req, res, targetOf(req.url)).catch(next);
  });
  mounted.use(errorHandler);
  const mountMatchers = expressMounts.map((mount) =>
    match(mount.path, { sensitive: false, end: false, trailing: true, decode: false }),
  );

  // The first segments of every API path: those paths stay the API's, answered or 404 in its style.
  const apiSegments = new Set(
    [...routes.map((route) => route.path), ...(deps.mounts ?? []).map((mount) => mount.path)].map(
      (template) => template.split('/')[1] ?? '',
    ),
  );
  const consolePages = consoleHandler(deps.consoleDirectory, apiSegments);

  const observe = accessLog(logger, metrics);
  return (req: IncomingMessage, res: ServerResponse) => {
    observe(req, res);
    setSecurityHeaders(res);
    const target = targetOf(req.url);
    if (consolePages?.(req, res, target.path)) return;
    // Plain loops: a callback to find() or some() is a closure made for every request.
    for (const wire of wireApis) {
      if (wire.matches(target.path)) {
        void wire.serve(req, res, target, clientAddress);
        return;
      }
    }
    for (const matches of mountMatchers) {
      if (matches(target.path)) {
        // Express swaps the response's prototype for its own, ApiResponse's methods with it.
        handOverHeaders(res);
        void mounted(req, res);
        return;
      }
    }
    declared(req, res, target).catch((error: unknown) => answerError(error, req, res));
  };
}

function isWireApi(router: express.Router | WireApi): router is WireApi {
  return 'serve' in router && 'matches' in router;
}
