import type { Express, Request, RequestHandler } from 'express';
import { forbidden, methodNotAllowed, notFound, unauthorized } from '../errors.js';
import { jsonBody, noBody, safeParameters } from '../middleware/json-body.js';
import { API_AREAS } from './areas.js';
import { requestIdOf, requestState } from './request-state.js';
import { RequestValidation } from './request-validation.js';
import { writeResult } from './responses.js';
import type { AnyRouteDefinition, AreaServices, CoreServices, RouteDefinition } from './route.js';
import type { Principal } from '../../accounts/principal.js';
import { templateShape } from './route-paths.js';

export interface RouterOptions<A extends AreaServices> {
  /** Spread into every handler's context. */
  services: CoreServices & A;
  /** Authentication and rate limiting; runs once for every request, matched or not. */
  admission: RequestHandler;
  bodyLimitBytes: number;
}

function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes('*') || principal.scopes.includes(scope);
}

function authorization(route: AnyRouteDefinition): RequestHandler {
  const scopes = route.scopes ?? [];
  return (req, _res, next) => {
    if (route.auth === 'public') return next();
    const { principal } = requestState(req);
    if (!principal) throw unauthorized();
    const missing = scopes.filter((scope) => !hasScope(principal, scope));
    if (missing.length > 0) {
      throw forbidden(`this operation requires the scope ${missing.join(', ')}`, {
        details: { missing_scopes: missing },
      });
    }
    next();
  };
}

/** Express hands a `*wildcard` over as its segments; handlers see the path text. */
function pathParams(req: Request): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.params as Record<string, string | string[]>)) {
    params[name] = Array.isArray(value) ? value.join('/') : value;
  }
  return params;
}

function dispatch<A extends AreaServices>(
  route: RouteDefinition<A>,
  options: RouterOptions<A>,
  validation: RequestValidation,
): RequestHandler {
  const validate = validation.compile(route.request);
  const style = API_AREAS[route.area].success;
  const takesBody = route.request?.body !== undefined;
  return async (req, res) => {
    const input = validate({
      params: pathParams(req),
      query: req.query as Record<string, unknown>,
      body: takesBody ? ((req.body as unknown) ?? {}) : undefined,
    });
    const requestId = requestIdOf(req);
    const result = await route.handler({
      ...options.services,
      ...input,
      principal: requestState(req).principal,
      requestId,
      logger: req.log,
      clientIp: req.ip ?? '',
      headers: req.headers,
    });
    writeResult(res, result, style, requestId);
  };
}

function allowedMethods(methods: ReadonlySet<string>): string[] {
  const allowed = [...methods].map((method) => method.toUpperCase());
  if (methods.has('get')) allowed.push('HEAD');
  return allowed;
}

/**
 * Registers the routes (already in matching order), then for each known path a handler answering
 * other methods with 405 and `Allow` (204 to OPTIONS), then the 404 for everything else.
 */
export function mountRoutes<A extends AreaServices>(
  app: Express,
  routes: readonly RouteDefinition<A>[],
  options: RouterOptions<A>,
): void {
  const validation = new RequestValidation();
  const methodsByShape = new Map<string, { template: string; methods: Set<string> }>();
  for (const route of routes) {
    const mark: RequestHandler = (req, _res, next) => {
      const state = requestState(req);
      state.template = route.path;
      state.route = route;
      next();
    };
    const steps = [mark, options.admission, authorization(route), safeParameters];
    steps.push(route.request?.body ? jsonBody(options.bodyLimitBytes) : noBody(options.bodyLimitBytes));
    app[route.method](route.path, ...steps, dispatch(route, options, validation));

    const shape = templateShape(route.path);
    const known = methodsByShape.get(shape) ?? { template: route.path, methods: new Set<string>() };
    known.methods.add(route.method);
    methodsByShape.set(shape, known);
  }

  for (const { template, methods } of methodsByShape.values()) {
    const allowed = allowedMethods(methods);
    app.all(
      template,
      (req, _res, next) => {
        requestState(req).template = template;
        next();
      },
      options.admission,
      (req, res) => {
        if (req.method !== 'OPTIONS') throw methodNotAllowed(req.method, allowed);
        res.set('Allow', allowed.join(', ')).status(204).end();
      },
    );
  }

  app.use(options.admission, (req) => {
    throw notFound(`no route for ${req.method} ${req.path}`);
  });
}
