import { API_AREAS } from './routing/areas.js';
import { RouteDeclarationError } from './routing/route-declarations.js';
import type { JsonSchema } from './routing/json-schema.js';
import type { ResponseDeclaration, AnyRouteDefinition } from './routing/route.js';
import { isWildcardParameter, openApiPath } from './routing/route-paths.js';

type JsonObject = Record<string, unknown>;

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, JsonObject>>;
  components: JsonObject;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const COMPONENTS = {
  schemas: {
    ErrorBody: {
      type: 'object',
      description: 'The general error body (every area but accounts).',
      required: ['error', 'meta'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: {
            code: { type: 'string', examples: ['invalid_request'] },
            message: { type: 'string' },
            details: { type: 'object' },
          },
        },
        meta: ref('schemas', 'ResponseMeta'),
      },
    },
    FlatErrorBody: {
      type: 'object',
      description: 'The accounts error body: a code and a message, plus documented extra fields.',
      required: ['error', 'message'],
      properties: {
        error: { type: 'string', examples: ['invalid_credentials'] },
        message: { type: 'string' },
        retry_after: { type: 'integer', description: 'Seconds to wait, on 429' },
        session_token: { type: 'string', description: 'Temporary token, on 403 2fa_required' },
      },
    },
    ResponseMeta: {
      type: 'object',
      required: ['request_id'],
      properties: { request_id: { type: 'string' } },
    },
    ListMeta: {
      type: 'object',
      required: ['total', 'page', 'per_page', 'request_id'],
      properties: {
        total: { type: 'integer', minimum: 0 },
        page: { type: 'integer', minimum: 1 },
        per_page: { type: 'integer', minimum: 1 },
        request_id: { type: 'string' },
      },
    },
  },
  headers: {
    RequestId: { description: 'The request id, echoed or generated', schema: { type: 'string' } },
    RateLimitLimit: { description: 'Requests allowed per minute', schema: { type: 'integer' } },
    RateLimitRemaining: { description: 'Requests left in the current minute', schema: { type: 'integer' } },
    RateLimitReset: {
      description: 'Unix time (seconds) the minute window resets',
      schema: { type: 'integer' },
    },
    RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  },
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A session token' },
    apiKeyAuth: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'An API key; `Authorization: ApiKey <key>` is accepted as well',
    },
  },
};

const COMMON_HEADERS = {
  'X-Request-Id': ref('headers', 'RequestId'),
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request does not match its schema; `details.fields` names each field and rule',
  401: 'Missing or invalid credentials',
  403: 'The credentials lack a required scope',
  413: 'The body exceeds the size limit',
  415: 'The body is not JSON',
  429: 'Rate limit exceeded',
  500: 'Internal error',
};

function operationId(route: AnyRouteDefinition): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((segment) =>
      segment.startsWith(':') || segment.startsWith('*') ? `by_${segment.slice(1)}` : segment,
    )
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [route.method, ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

function parameters(route: AnyRouteDefinition): JsonObject[] {
  const path = Object.entries(route.request?.params?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    description: isWildcardParameter(route.path, name)
      ? `${schema.description ?? name} (may contain /)`
      : schema.description,
    schema,
  }));
  const query = route.request?.query;
  const queryParameters = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    description: schema.description,
    schema,
  }));
  return [...path, ...queryParameters];
}

function successContent(route: AnyRouteDefinition, response: ResponseDeclaration): JsonObject | undefined {
  if (response.contentType) return { [response.contentType]: { schema: { type: 'string' } } };
  if (!response.schema) return undefined;
  const schema: JsonSchema | JsonObject =
    API_AREAS[route.area].success === 'bare'
      ? response.schema
      : {
          type: 'object',
          required: ['data', 'meta'],
          properties: {
            data: response.schema,
            meta: ref('schemas', response.paginated ? 'ListMeta' : 'ResponseMeta'),
          },
        };
  return { 'application/json': { schema } };
}

function responses(route: AnyRouteDefinition): JsonObject {
  const errorBody = ref('schemas', API_AREAS[route.area].errors === 'flat' ? 'FlatErrorBody' : 'ErrorBody');
  const implied: Record<number, string> = {};
  if (route.request) implied[400] = ERROR_DESCRIPTIONS[400]!;
  if (route.auth === 'authenticated') implied[401] = ERROR_DESCRIPTIONS[401]!;
  if ((route.scopes?.length ?? 0) > 0) implied[403] = ERROR_DESCRIPTIONS[403]!;
  if (route.request?.body) {
    implied[413] = ERROR_DESCRIPTIONS[413]!;
    implied[415] = ERROR_DESCRIPTIONS[415]!;
  }
  if (!route.operational) implied[429] = ERROR_DESCRIPTIONS[429]!;
  implied[500] = ERROR_DESCRIPTIONS[500]!;

  const answers: JsonObject = {};
  const declared = Object.entries(route.responses).map(
    ([status, response]) => [Number(status), response] as const,
  );
  const statuses = new Set([...declared.map(([status]) => status), ...Object.keys(implied).map(Number)]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const response = route.responses[status];
    const headers =
      status === 429 ? { ...COMMON_HEADERS, 'Retry-After': ref('headers', 'RetryAfter') } : COMMON_HEADERS;
    const description = response?.description ?? implied[status]!;
    const content =
      status >= 400 && !response?.schema
        ? { 'application/json': { schema: errorBody } }
        : response && successContent(route, response);
    answers[String(status)] = content ? { description, headers, content } : { description, headers };
  }
  return answers;
}

function operation(route: AnyRouteDefinition): JsonObject {
  const scopes = [...(route.scopes ?? [])];
  const body = route.request?.body;
  return {
    operationId: route.operationId ?? operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags && route.tags.length > 0 ? [...route.tags] : [route.area],
    parameters: parameters(route),
    ...(body
      ? {
          requestBody: {
            required: (body.required?.length ?? 0) > 0,
            content: { 'application/json': { schema: body } },
          },
        }
      : {}),
    responses: responses(route),
    security: route.auth === 'public' ? [] : [{ bearerAuth: scopes }, { apiKeyAuth: scopes }],
  };
}

/** The OpenAPI 3.1 description of the declared routes, with the envelopes of their areas applied. */
export function buildOpenApiDocument(
  routes: readonly AnyRouteDefinition[],
  info: { title: string; version: string; serverUrl: string },
): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const path = openApiPath(route.path);
    const described = operation(route);
    const id = described.operationId as string;
    if (operationIds.has(id)) {
      throw new RouteDeclarationError([
        `${route.method.toUpperCase()} ${route.path}: operationId ${id} is taken`,
      ]);
    }
    operationIds.add(id);
    paths[path] = { ...paths[path], [route.method]: described };
  }
  const tags = [
    ...new Set(
      Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags as string[])),
    ),
  ];
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    servers: [{ url: info.serverUrl }],
    tags: tags.sort().map((name) => ({ name })),
    paths,
    components: COMPONENTS,
  };
}
