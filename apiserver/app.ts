import express from 'express';
import type { Config } from '../config/config.js';
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
import { collectRoutes } from './routing/route-declarations.js';
import type { RouteModule } from './routing/route.js';
import type { Authenticator } from '../accounts/principal.js';
import { mountRoutes } from './routing/router.js';
import { operationsRoutes } from './routes/operations/operations.js';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  store: ObjectStore;
  database: DataPlane;
  /** The API's route modules, one per area; the operational endpoints are always served. */
  routes?: RouteModule[];
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
export function createApp(deps: AppDependencies): express.Express {
  const now = deps.now ?? (() => new Date());
  const startedAt = deps.startedAt ?? now();
  const { config, logger, metrics, store, database } = deps;

  const modules = [operationsRoutes({ startedAt, openApiDocument: () => document }), ...(deps.routes ?? [])];
  const routes = collectRoutes(modules);
  const document = buildOpenApiDocument(routes, {
    title: 'cloudplane API',
    version: 'v1',
    serverUrl: config.baseUrl,
  });

  const limiter = new RequestRateLimiter({ limits: config.rateLimit, pgPool: database.pgPool, logger, now });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  // Answers are `no-store`: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.use(accessLog(logger), securityHeaders, httpMetrics(metrics));
  for (const mount of deps.mounts ?? []) app.use(mount.path, mount.router);
  mountRoutes(app, routes, {
    services: { config, metrics, store, database, now },
    admission: admission(deps.authenticator, limiter),
    bodyLimitBytes: config.bodyLimitBytes,
  });
  app.use(errorHandler);
  return app;
}
