import express from 'express';
import type { Authenticator } from '../accounts/principal.js';
import type { HttpConfig } from '../config/http.js';
import type { ObjectStore } from '../control-plane/types.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { accessLog } from './middleware/access-log.js';
import { admission } from './middleware/admission.js';
import { errorHandler } from './middleware/error-handler.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { RequestRateLimiter } from './middleware/rate-limit.js';
import { securityHeaders } from './middleware/security-headers.js';
import { buildOpenApiDocument } from './openapi.js';
import { operationsRoutes, type OperationsServices } from './routes/operations/operations.js';
import { collectRoutes } from './routing/route-declarations.js';
import type { AreaServices, RouteDefinition, RouteModule } from './routing/route.js';
import { mountRoutes } from './routing/router.js';

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
   * Routers that speak a wire format of their own (the Vault-compatible API), mounted before the
   * declared routes; they do their own authentication.
   */
  mounts?: readonly { path: string; router: express.Router }[];
  /** Without one, every request is anonymous and `authenticated` routes answer 401. */
  authenticator?: Authenticator;
  now?: () => Date;
  /** The moment `/health` counts uptime from; defaults to the app's creation. */
  startedAt?: Date;
}

/**
 * The REST facade as an express app, not yet listening (see `startServer`). Route declarations
 * are checked and their schemas compiled here, so a broken declaration fails start-up.
 */
export function createApp<A extends AreaServices>(deps: AppDependencies<A>): express.Express {
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

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', http.trustProxy);
  // Answers are `no-store`: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.use(accessLog(logger), securityHeaders, httpMetrics(metrics));
  for (const mount of deps.mounts ?? []) app.use(mount.path, mount.router);
  mountRoutes(app, routes, {
    services: { ...(deps.services as A), operations, metrics, store, database, now },
    admission: admission(deps.authenticator, limiter),
    bodyLimitBytes: http.bodyLimitBytes,
  });
  app.use(errorHandler);
  return app;
}
