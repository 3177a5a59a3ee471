import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { forbidden, methodNotAllowed, notFound, unauthorized } from '../errors.js';
import type { Admission, ClientAddress } from '../middleware/admission.js';
import { jsonBody, noBody, refuseUnsafeParameters } from '../middleware/json-body.js';
import { API_AREAS } from './areas.js';
import { requestIdOf, requestState } from './request-state.js';
import { RequestValidation } from './request-validation.js';
import { writeResult } from './responses.js';
import type { AnyRouteDefinition, AreaServices, CoreServices, RouteDefinition } from './route.js';
import type { Principal } from '../../accounts/principal.js';
import { templateShape, type RequestTarget } from './route-paths.js';
import { RouteTable } from './route-table.js';

export interface RouterOptions<A extends AreaServices> {
  /** Spread into every handler's context. */
  services: CoreServices & A;
  /** Authentication and rate limiting; runs once for every request, matched or not. */
  admission: Admission;
  clientAddress: ClientAddress;
  bodyLimitBytes: number;
}

function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes('*') || principal.scopes.includes(scope);
}

function authorize(route: AnyRouteDefinition, principal: Principal | undefined): void {
  if (route.auth === 'public') return;
  if (!principal) throw unauthorized();
  const missing = (route.scopes ?? []).filter((scope) => !hasScope(principal, scope));
  if (missing.length > 0) {
    throw forbidden(`this operation requires the scope ${missing.join(', ')}`, {
      details: { missing_scopes: missing },
    });
  }
}

/** A `*wildcard` matches as its segments; handlers see the path text. */
function joinedParams(params: Record<string, string | string[]>): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const name in params) {
    const value = params[name]!;
    joined[name] = Array.isArray(value) ? value.join('/') : value;
  }
  return joined;
}

/** The request a handler's context was made for; its prototype reads from it. */
const REQUEST = Symbol('the request');

/**
 * What every handler context of an app shares, as their prototype: the services (not copied per
 * request) and the parts read from the request only if a handler asks (its logger, its client
 * address, worked out from the forwarding headers).
 */
function contextPrototype(services: object, clientAddress: ClientAddress): object {
  return Object.create(services, {
    logger: {
      enumerable: true,
      get(this: { [REQUEST]: IncomingMessage }) {
        return this[REQUEST].log;
      },
    },
    clientIp: {
      enumerable: true,
      get(this: { [REQUEST]: IncomingMessage }) {
        return clientAddress(this[REQUEST]);
      },
    },
  }) as object;
}

/** What answers a matched route: its steps, given the path parameters the table found. */
type RouteAnswer = (
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
  params: Record<string, string>,
) => Promise<void>;

/**
 * A route's steps in order: admission, authorization, the path parameters' characters, the body
 * (read or refused), validation, the handler, the answer; plain calls rather than an express
 * layer per step, each of which costs a trip through the router.
 */
function routeAnswer<A extends AreaServices>(
  route: RouteDefinition<A>,
  options: RouterOptions<A>,
  validation: RequestValidation,
  prototype: object,
): RouteAnswer {
  const validate = validation.compile(route.request);
  const style = API_AREAS[route.area].success;
  const takesBody = route.request?.body !== undefined;
  const readBody = takesBody ? jsonBody(options.bodyLimitBytes) : undefined;
  const readNoBody = takesBody ? undefined : noBody(options.bodyLimitBytes);
  return async (req, res, target, params) => {
    const state = requestState(req);
    state.template = route.path;
    state.route = route;
    // Awaited only when a step had to wait: awaiting a plain value still costs a turn of the
    // microtask queue, and a probe or an authenticated read mostly waits for nothing.
    const admitted = options.admission(req, res);
    if (admitted) await admitted;
    authorize(route, state.principal);
    refuseUnsafeParameters(params);
    let body: unknown;
    if (readBody) body = (await readBody(req, res)) ?? {};
    else {
      const refused = readNoBody!(req, res, target.path);
      if (refused) await refused;
    }
    const input = validate({
      params,
      query: target.query === undefined ? {} : parseQuery(target.query),
      body,
    });
    const requestId = requestIdOf(req);
    const context = Object.create(prototype) as Record<string | symbol, unknown>;
    context[REQUEST] = req;
    context.params = input.params;
    context.query = input.query;
    context.body = input.body;
    context.principal = state.principal;
    context.requestId = requestId;
    context.headers = req.headers;
    const result = await route.handler(context as unknown as Parameters<typeof route.handler>[0]);
    writeResult(res, result, style, requestId);
  };
}

function allowedMethods(methods: ReadonlySet<string>): string[] {
  const allowed = [...methods].map((method) => method.toUpperCase());
  if (methods.has('get')) allowed.push('HEAD');
  return allowed;
}

/** Answers a request from the declared routes; a failure is thrown for the caller to answer. */
export type DeclaredRoutes = (
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
) => Promise<void>;

/**
 * Serves the routes (already in matching order) from one route table: a matched route runs its
 * steps; a known path asked with another method answers 405 and `Allow` (204 to OPTIONS); any
 * other path 404, after admission.
 */
export function declaredRoutes<A extends AreaServices>(
  routes: readonly RouteDefinition<A>[],
  options: RouterOptions<A>,
): DeclaredRoutes {
  const validation = new RequestValidation();
  const methodsByShape = new Map<string, { template: string; methods: Set<string> }>();
  for (const route of routes) {
    const shape = templateShape(route.path);
    const known = methodsByShape.get(shape) ?? { template: route.path, methods: new Set<string>() };
    known.methods.add(route.method);
    methodsByShape.set(shape, known);
  }
  const prototype = contextPrototype(options.services, options.clientAddress);
  const table = new RouteTable(
    routes.map((route) => ({
      template: route.path,
      method: route.method,
      value: routeAnswer(route, options, validation, prototype),
    })),
  );

  return async (req, res, target) => {
    const method = req.method ?? 'GET';
    const found = table.lookup(method, target.path);
    if (found.kind === 'route') {
      await found.entry.value(req, res, target, joinedParams(found.params));
      return;
    }
    if (found.kind === 'none') {
      await options.admission(req, res);
      throw notFound(`no route for ${method} ${target.path}`);
    }
    const { template, methods } = methodsByShape.get(templateShape(found.template))!;
    requestState(req).template = template;
    await options.admission(req, res);
    const allowed = allowedMethods(methods);
    if (method !== 'OPTIONS') throw methodNotAllowed(method, allowed);
    res.statusCode = 204;
    res.setHeader('Allow', allowed.join(', '));
    res.end();
  };
}
