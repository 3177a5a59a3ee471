import { SharedRound } from '../../../observability/shared-round.js';
import { metricsScrapeAllowed } from '../../../security/metrics-token.js';
import { humanDuration } from '../../duration.js';
import { unauthorized } from '../../errors.js';
import type { OpenApiDocument } from '../../openapi.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import type { Principal } from '../../../accounts/principal.js';
import {
  defineRoute,
  type Empty,
  type RouteContext,
  type RouteModule,
  type RouteResult,
} from '../../routing/route.js';

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

/** What the operational endpoints need beyond the core services. */
export interface OperationsServices {
  operations: {
    /** The moment `/health` counts uptime from. */
    startedAt: Date;
    /** `CLOUDPLANE_METRICS_TOKEN`: when set, `/metrics` answers only a bearer of it. */
    metricsToken: string | undefined;
    openApiDocument: () => OpenApiDocument;
  };
}

type OperationsContext = RouteContext<Empty, Principal | undefined, OperationsServices>;

/**
 * The checks of each app, shared by the probes of a second: a probe storm (every node's load
 * balancer, a benchmark) costs the store and the database one ping each per second.
 */
const checksOfApp = new WeakMap<OperationsServices['operations'], SharedRound<[string, string]>>();

function runChecks({ store, database, operations }: OperationsContext): Promise<[string, string]> {
  let checks = checksOfApp.get(operations);
  if (!checks) {
    checks = new SharedRound(
      () => Promise.all([check(() => store.ping()), check(() => database.ping())]),
      1000,
    );
    checksOfApp.set(operations, checks);
  }
  return checks.result();
}

/** A health answer and what it was made of: the round of checks and the uptime in whole seconds. */
interface HealthAnswer {
  checks: [string, string];
  uptimeSeconds: number;
  result: RouteResult;
}

/**
 * Each app's last health answer, its body written once: the probes of a second share their checks
 * and uptime, so all but the first take the same text.
 */
const lastHealthOfApp = new WeakMap<OperationsServices['operations'], HealthAnswer>();

async function health(context: OperationsContext): Promise<RouteResult> {
  const { now, operations } = context;
  const checks = await runChecks(context);
  const uptimeSeconds = Math.max(0, Math.floor((now().getTime() - operations.startedAt.getTime()) / 1000));
  const last = lastHealthOfApp.get(operations);
  if (last?.checks === checks && last.uptimeSeconds === uptimeSeconds) return last.result;
  const result = healthAnswer(checks, uptimeSeconds);
  lastHealthOfApp.set(operations, { checks, uptimeSeconds, result });
  return result;
}

function healthAnswer([storeCheck, databaseCheck]: [string, string], uptimeSeconds: number): RouteResult {
  const healthy = storeCheck === 'ok' && databaseCheck === 'ok';
  const body = {
    status: healthy ? 'healthy' : 'unhealthy',
    uptime: humanDuration(uptimeSeconds),
    uptime_seconds: uptimeSeconds,
    checks: { store: storeCheck, database: databaseCheck },
  };
  return {
    status: healthy ? 200 : 503,
    raw: { contentType: 'application/json; charset=utf-8', content: JSON.stringify(body) },
  };
}

async function metricsScrape({
  headers,
  metrics,
  database,
  operations,
}: OperationsContext): Promise<RouteResult> {
  if (!metricsScrapeAllowed(operations.metricsToken, headers.authorization)) {
    throw unauthorized('metrics need the scrape token: Authorization: Bearer <CLOUDPLANE_METRICS_TOKEN>');
  }
  metrics.databaseConnectionsActive.set(database.activeConnections());
  const { registry } = metrics;
  return { raw: { contentType: registry.contentType, content: await registry.metrics() } };
}

async function openApi({ operations }: OperationsContext): Promise<RouteResult> {
  return { data: operations.openApiDocument() };
}

/** `/health`, `/metrics` and `/openapi.json`: public, outside the versioned API. */
export const operationsRoutes: RouteModule<OperationsServices> = {
  area: 'operations',
  routes: [
    defineRoute<Empty, OperationsServices>({
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
      handler: health,
    }),
    defineRoute<Empty, OperationsServices>({
      method: 'get',
      path: '/metrics',
      area: 'operations',
      auth: 'public',
      operational: true,
      summary: 'Prometheus metrics',
      responses: {
        200: { description: 'Prometheus text exposition', contentType: 'text/plain; version=0.0.4' },
      },
      handler: metricsScrape,
    }),
    defineRoute<Empty, OperationsServices>({
      method: 'get',
      path: '/openapi.json',
      area: 'operations',
      auth: 'public',
      summary: 'This API described in OpenAPI 3.1',
      responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
      handler: openApi,
    }),
  ],
};
