import { metricsScrapeAllowed } from '../../../security/metrics-token.js';
import { humanDuration } from '../../duration.js';
import { unauthorized } from '../../errors.js';
import type { OpenApiDocument } from '../../openapi.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule } from '../../routing/route.js';

/** Kubernetes probes give up after a second by default; a check must answer before that. */
const CHECK_TIMEOUT_MS = 800;

const CHECK_RESULT = {
  type: 'string',
  description: '`ok`, or why the dependency failed',
} as const satisfies JsonSchema;

const HEALTH = {
  type: 'object',
  required: ['status', 'uptime', 'uptime_seconds', 'checks'],
  properties: {
    status: { type: 'string', enum: ['healthy', 'unhealthy'] },
    uptime: { type: 'string', description: 'Time since start, such as 3h12m5s', examples: ['3h12m5s'] },
    uptime_seconds: { type: 'integer', minimum: 0 },
    checks: {
      type: 'object',
      required: ['store', 'database'],
      properties: { store: CHECK_RESULT, database: CHECK_RESULT },
    },
  },
} as const satisfies JsonSchema;

async function check(probe: () => Promise<void>): Promise<string> {
  // A plain timer rather than an abortable one: aborting builds a DOMException on every probe.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe().then(() => 'ok'), timeout]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

export interface OperationsOptions {
  startedAt: Date;
  openApiDocument: () => OpenApiDocument;
}

/** `/health`, `/metrics` and `/openapi.json`: public, outside the versioned API. */
export function operationsRoutes(options: OperationsOptions): RouteModule {
  return {
    area: 'operations',
    routes: [
      defineRoute({
        method: 'get',
        path: '/health',
        area: 'operations',
        auth: 'public',
        operational: true,
        summary: 'Liveness and readiness: the object store and the database answer',
        responses: {
          200: { description: 'Both dependencies answer', schema: HEALTH },
          503: { description: 'A dependency failed; `checks` says which and why', schema: HEALTH },
        },
        async handler(ctx) {
          const [store, database] = await Promise.all([
            check(() => ctx.store.ping()),
            check(() => ctx.database.ping()),
          ]);
          const healthy = store === 'ok' && database === 'ok';
          const uptimeSeconds = Math.max(
            0,
            Math.floor((ctx.now().getTime() - options.startedAt.getTime()) / 1000),
          );
          return {
            status: healthy ? 200 : 503,
            data: {
              status: healthy ? 'healthy' : 'unhealthy',
              uptime: humanDuration(uptimeSeconds),
              uptime_seconds: uptimeSeconds,
              checks: { store, database },
            },
          };
        },
      }),
      defineRoute({
        method: 'get',
        path: '/metrics',
        area: 'operations',
        auth: 'public',
        operational: true,
        summary: 'Prometheus metrics',
        responses: {
          200: { description: 'Prometheus text exposition', contentType: 'text/plain; version=0.0.4' },
        },
        async handler(ctx) {
          if (!metricsScrapeAllowed(ctx.config.metricsToken, ctx.headers.authorization)) {
            throw unauthorized(
              'metrics need the scrape token: Authorization: Bearer <CLOUDPLANE_METRICS_TOKEN>',
            );
          }
          ctx.metrics.databaseConnectionsActive.set(ctx.database.activeConnections());
          const { registry } = ctx.metrics;
          return { raw: { contentType: registry.contentType, content: await registry.metrics() } };
        },
      }),
      defineRoute({
        method: 'get',
        path: '/openapi.json',
        area: 'operations',
        auth: 'public',
        summary: 'This API described in OpenAPI 3.1',
        responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
        async handler() {
          return { data: options.openApiDocument() };
        },
      }),
    ],
  };
}
