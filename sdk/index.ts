/**
 * The typed client of the cloudplane REST API (`cloudplane/sdk`). Paths, parameters, bodies and
 * answers come from the API's own OpenAPI document (`npm run gen:sdk`), so a call the API does
 * not serve does not compile. Every error answer is thrown as a `CloudplaneError`.
 *
 *   const api = createCloudplaneClient({ baseUrl: 'https://cloudplane.example', apiKey });
 *   const databases = dataOf(await api.GET('/v1/databases')); // an enveloped area: `{data, meta}`
 *   const { data: vpcs } = await api.GET('/api/v1/vpcs'); // a bare area: the answer itself
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** A credential, or a function giving the current one (a token that gets refreshed). */
export type Credential = string | (() => string | undefined | Promise<string | undefined>);

export interface CloudplaneClientOptions {
  /** The platform's URL, e.g. `https://cloudplane.example`. */
  baseUrl: string;
  /** A session token, sent as `Authorization: Bearer <token>`. */
  token?: Credential;
  /** An API key, sent as `X-API-Key`. */
  apiKey?: Credential;
  /** Defaults to the global `fetch`. */
  fetch?: (input: Request) => Promise<Response>;
}

export type CloudplaneClient = Client<paths>;

/** An error answer of the API, in either of its two body styles. */
export class CloudplaneError extends Error {
  override readonly name = 'CloudplaneError';

  constructor(
    readonly status: number,
    /** The API's reason, e.g. `not_found`, `invalid_credentials`. */
    readonly code: string,
    message: string,
    /** The request's id, for the operator's logs. */
    readonly requestId: string | undefined,
    /** What the body adds: `fields` of a validation error, `retry_after`, `session_token`, … */
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The error a response carries: the general body `{error: {code, message, details}, meta:
 * {request_id}}` or the accounts' flat body `{error, message, ...details}`; the request id falls
 * back to the `X-Request-Id` header.
 */
export async function errorOf(response: Response): Promise<CloudplaneError> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  if (isObject(body) && isObject(body.error)) {
    const { code, message, details } = body.error;
    const requestId = isObject(body.meta) ? body.meta.request_id : undefined;
    return new CloudplaneError(
      response.status,
      String(code),
      String(message),
      typeof requestId === 'string' ? requestId : headerRequestId,
      isObject(details) ? details : {},
    );
  }
  if (isObject(body) && typeof body.error === 'string') {
    const { error, message, ...details } = body;
    return new CloudplaneError(response.status, error, String(message), headerRequestId, details);
  }
  const reason = response.statusText || `HTTP ${response.status}`;
  return new CloudplaneError(response.status, `http_${response.status}`, reason, headerRequestId, {});
}

async function current(credential: Credential | undefined): Promise<string | undefined> {
  return typeof credential === 'function' ? credential() : credential;
}

function authentication(token: Credential | undefined, apiKey: Credential | undefined): Middleware {
  return {
    async onRequest({ request }) {
      const bearer = await current(token);
      const key = await current(apiKey);
      if (bearer) request.headers.set('Authorization', `Bearer ${bearer}`);
      if (key) request.headers.set('X-API-Key', key);
      return request;
    },
  };
}

const throwErrors: Middleware = {
  async onResponse({ response }) {
    if (response.status >= 400) throw await errorOf(response);
    return response;
  },
};

/** A client of the API at `baseUrl`; it throws `CloudplaneError` for every error answer. */
export function createCloudplaneClient(options: CloudplaneClientOptions): CloudplaneClient {
  if (options.token !== undefined && options.apiKey !== undefined) {
    throw new TypeError('give a token or an API key, not both');
  }
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(authentication(options.token, options.apiKey), throwErrors);
  return client;
}

/** The `data` of an answer in the `{data, meta}` envelope. */
export function dataOf<T>(result: { data?: { data: T }; response: Response }): T {
  if (result.data === undefined) {
    throw new TypeError(`the answer (${result.response.status}) has no body`);
  }
  return result.data.data;
}
