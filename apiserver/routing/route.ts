import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../accounts/principal.js';
import type { ObjectStore } from '../../control-plane/types.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { ApiArea } from './areas.js';
import type { JsonSchema, ObjectSchema } from './json-schema.js';
import type { PageInfo } from './pagination.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What every handler works with, whatever its area: the control plane (custom resources), the
 * data plane (records), metrics and the clock. The store reaches handlers only this way.
 */
export interface CoreServices {
  metrics: Metrics;
  store: ObjectStore;
  database: DataPlane;
  now: () => Date;
}

/**
 * What an area's handlers need beyond the core (the vault engine, a configuration slice), as a
 * record of named services. A module declares its own; the composition root hands `createApp`
 * one object that satisfies every module's.
 */
export type AreaServices = object;

/**
 * The TypeScript shapes of a route's validated input. They are declared next to the JSON Schemas
 * that describe them: ajv guarantees the values match before the handler runs.
 */
export interface RequestShape {
  params?: object;
  query?: object;
  body?: unknown;
}

/** A request with no params, query or body to declare. */
export type Empty = Record<never, never>;
type Part<S, K extends keyof RequestShape, Fallback> = K extends keyof S
  ? Exclude<S[K], undefined>
  : Fallback;

export type RouteContext<
  S extends RequestShape = RequestShape,
  P extends Principal | undefined = Principal | undefined,
  A extends AreaServices = AreaServices,
> = CoreServices & A & RequestContext<S, P>;

/** What the handler of an authenticated route receives: the caller is always known. */
export type AuthenticatedContext<
  S extends RequestShape = Empty,
  A extends AreaServices = AreaServices,
> = RouteContext<S, Principal, A>;

/** What the handler of a public route receives: the caller is known when credentials came along. */
export type PublicContext<
  S extends RequestShape = Empty,
  A extends AreaServices = AreaServices,
> = RouteContext<S, Principal | undefined, A>;

/** The request itself, validated, as a handler sees it. */
export interface RequestContext<S extends RequestShape, P extends Principal | undefined> {
  params: Part<S, 'params', Empty>;
  /** Query parameters after coercion and defaults; undeclared parameters are dropped. */
  query: Part<S, 'query', Empty>;
  /** The parsed JSON body; `{}` when the request sent none. */
  body: Part<S, 'body', undefined>;
  principal: P;
  requestId: string;
  /** Carries the request id on every line. */
  logger: Logger;
  clientIp: string;
  headers: IncomingHttpHeaders;
}

/**
 * What a handler answers; the framework writes the envelope of the route's area. Without `data`
 * and `raw` the response has no body and the status defaults to 204, otherwise to 200.
 */
export interface RouteResult {
  status?: number;
  data?: unknown;
  /** Makes a style-A list: `meta` gains `total`, `page` and `per_page`. */
  page?: PageInfo;
  /** A body written as is, without an envelope (Prometheus text, for instance). */
  raw?: { contentType: string; content: string | Buffer };
  headers?: Readonly<Record<string, string>>;
}

export interface ResponseDeclaration {
  description: string;
  /** The schema of what the handler returns in `data`, before the envelope. */
  schema?: JsonSchema;
  /** A style-A list answer with page metadata. */
  paginated?: boolean;
  /** Media type of a `raw` answer; JSON when omitted. */
  contentType?: string;
}

/**
 * JSON Schemas of the request parts. Query and path values are strings on the wire: they are
 * coerced to the declared types, defaults are filled in and undeclared query parameters dropped.
 * Bodies are not coerced and keep unknown fields, so a body schema that should refuse them says
 * `additionalProperties: false`.
 */
export interface RequestSchemas {
  params?: ObjectSchema;
  query?: ObjectSchema;
  body?: JsonSchema;
}

interface RouteDeclarationBase {
  method: HttpMethod;
  /** Express path syntax, full path including the prefix: `/api/v1/vpcs/:id`, `/x/*path`. */
  path: string;
  area: ApiArea;
  summary: string;
  description?: string;
  tags?: readonly string[];
  /** Defaults to one derived from the method and path. */
  operationId?: string;
  /** Every one is required; `*` in the principal's scopes satisfies any. */
  scopes?: readonly string[];
  request?: RequestSchemas;
  responses: Readonly<Record<number, ResponseDeclaration>>;
  /**
   * A machine endpoint (probe, scrape): answered with rate-limit headers but never counted or
   * throttled, and access-logged at debug level.
   */
  operational?: boolean;
}

export interface PublicRoute<
  S extends RequestShape = Empty,
  A extends AreaServices = AreaServices,
> extends RouteDeclarationBase {
  auth: 'public';
  handler: (ctx: RouteContext<S, Principal | undefined, A>) => Promise<RouteResult>;
}

export interface AuthenticatedRoute<
  S extends RequestShape = Empty,
  A extends AreaServices = AreaServices,
> extends RouteDeclarationBase {
  auth: 'authenticated';
  handler: (ctx: RouteContext<S, Principal, A>) => Promise<RouteResult>;
}

export type RouteDeclaration = RouteDeclarationBase & { auth: 'public' | 'authenticated' };

/**
 * A declared route with its input types erased: what modules hand to the framework. The handler
 * is a property, not a method, so a route needing services `A` is only accepted where they are
 * given.
 */
export interface RouteDefinition<A extends AreaServices = AreaServices> extends RouteDeclaration {
  handler: (ctx: RouteContext<RequestShape, Principal | undefined, A>) => Promise<RouteResult>;
}

/** A route whatever services it needs: for code that reads declarations and never calls handlers. */
export type AnyRouteDefinition = RouteDefinition<never>;

/** An area's routes and the services they need beyond the core. */
export interface RouteModule<A extends AreaServices = AreaServices> {
  area: ApiArea;
  routes: readonly RouteDefinition<A>[];
}

/**
 * Declares a route. `S` names the TypeScript shapes of the validated params, query and body; `A`
 * the area services its handler uses; `auth: 'authenticated'` makes `ctx.principal` always present.
 */
export function defineRoute<S extends RequestShape = Empty, A extends AreaServices = AreaServices>(
  route: PublicRoute<S, A>,
): RouteDefinition<A>;
export function defineRoute<S extends RequestShape = Empty, A extends AreaServices = AreaServices>(
  route: AuthenticatedRoute<S, A>,
): RouteDefinition<A>;
export function defineRoute(route: RouteDeclaration & { handler: (ctx: never) => Promise<RouteResult> }) {
  return route as RouteDefinition;
}
