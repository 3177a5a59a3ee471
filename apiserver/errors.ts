import { AccountError, type AccountErrorReason } from '../accounts/account-error.js';
import type { ConnectError } from '../connect/index.js';
import { StoreError } from '../control-plane/types.js';
import type { SchemaRegistryError } from '../schema-registry/index.js';
import type { VaultError, VaultErrorKind } from '../vault/vault-error.js';
import type { ErrorStyle } from './routing/areas.js';

export type ErrorDetails = Record<string, unknown>;

/**
 * Fields the flat (accounts) error body adds after `error` and `message`, such as `retry_after`
 * or `session_token`.
 */
export type FlatErrorExtra = Record<string, unknown> & { error?: never; message?: never };

/**
 * The one error type of the facade. Handlers and middleware throw it; the error handler renders
 * it in the style of the area that answered. `details` appears only in the general style, `extra`
 * only in the flat style, so an error meant for both carries the same facts in each.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    readonly extra: FlatErrorExtra = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // An answer, not a failure: its stack is never written anywhere, and capturing one (the frames
    // of every caller awaiting it too) cost more than the rest of a 404.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
  }
}

export interface ErrorOptions {
  /** Replaces the default code, e.g. `invalid_credentials` for a 401. */
  code?: string;
  details?: ErrorDetails;
  extra?: FlatErrorExtra;
}

function build(status: number, defaultCode: string, message: string, options: ErrorOptions = {}): ApiError {
  return new ApiError(status, options.code ?? defaultCode, message, options.details, options.extra);
}

/** 400: the request does not satisfy its schema. */
export function badRequest(message: string, options?: ErrorOptions): ApiError {
  return build(400, 'invalid_request', message, options);
}

export function unauthorized(message = 'authentication required', options?: ErrorOptions): ApiError {
  return build(401, 'unauthorized', message, options);
}

export function forbidden(message: string, options?: ErrorOptions): ApiError {
  return build(403, 'forbidden', message, options);
}

export function notFound(message: string, options?: ErrorOptions): ApiError {
  return build(404, 'not_found', message, options);
}

export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(
    405,
    'method_not_allowed',
    `${method} is not allowed here; allowed: ${allowed.join(', ')}`,
    { allowed: [...allowed] },
    {},
    { Allow: allowed.join(', ') },
  );
}

export function conflict(message: string, options?: ErrorOptions): ApiError {
  return build(409, 'conflict', message, options);
}

export function gone(message: string, options?: ErrorOptions): ApiError {
  return build(410, 'gone', message, options);
}

export function payloadTooLarge(limitBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `request body exceeds the limit of ${limitBytes} bytes`, {
    limit_bytes: limitBytes,
  });
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(
    415,
    'unsupported_media_type',
    `request body must be application/json, got ${contentType}`,
    { content_type: contentType },
  );
}

/** 422: the body is well-formed and matches its schema but breaks a rule of the domain. */
export function unprocessable(message: string, options?: ErrorOptions): ApiError {
  return build(422, 'validation_failed', message, options);
}

/** 429 with `retry_after` in both styles and a `Retry-After` header. */
export function tooManyRequests(
  retryAfterSeconds: number,
  message = 'rate limit exceeded',
  headers: Readonly<Record<string, string>> = {},
): ApiError {
  return new ApiError(
    429,
    'rate_limited',
    message,
    { retry_after: retryAfterSeconds },
    { retry_after: retryAfterSeconds },
    { ...headers, 'Retry-After': String(retryAfterSeconds) },
  );
}

export function serviceUnavailable(message: string, options?: ErrorOptions): ApiError {
  return build(503, 'service_unavailable', message, options);
}

/** What every unexpected failure looks like from outside: nothing about the cause. */
export function internalError(): ApiError {
  return new ApiError(500, 'internal_error', 'internal error');
}

function subjectOf(error: StoreError): string {
  const kind = error.details.kind ?? 'resource';
  return error.details.name ? `${kind} "${error.details.name}"` : kind;
}

/**
 * The answer for an object-store failure, or `undefined` when the failure is ours rather than
 * the caller's (the store refusing our own credentials, or breaking): those are logged and
 * answered as internal errors.
 */
export function fromStoreError(error: StoreError): ApiError | undefined {
  switch (error.reason) {
    case 'NotFound':
      return notFound(`${subjectOf(error)} not found`);
    case 'AlreadyExists':
      return conflict(`${subjectOf(error)} already exists`);
    case 'Conflict':
      return conflict(`${subjectOf(error)} was changed by another request; read it again and retry`);
    case 'Invalid':
      return unprocessable(error.message, {
        details: {
          fields: (error.details.causes ?? []).map((cause) => ({
            field: cause.field,
            rule: cause.reason,
            message: cause.message,
          })),
        },
      });
    case 'BadRequest':
      return badRequest(error.message);
    case 'Expired':
    case 'Gone':
      return gone(error.message);
    case 'TooManyRequests':
    case 'ServiceUnavailable':
      return serviceUnavailable('the resource store is unavailable; retry shortly');
    case 'Forbidden':
    case 'Unauthorized':
    case 'InternalError':
      return undefined;
  }
}

const ACCOUNT_ERROR_STATUS: Record<AccountErrorReason, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  rate_limited: 429,
  unavailable: 503,
};

/** The answer for a refusal of the accounts service. */
export function fromAccountError(error: AccountError): ApiError {
  if (error.reason === 'rate_limited') return tooManyRequests(error.retryAfterSeconds ?? 1, error.message);
  return new ApiError(
    ACCOUNT_ERROR_STATUS[error.reason],
    error.code,
    error.message,
    error.details,
    error.extra,
  );
}

const VAULT_ERROR_CODES: Record<VaultErrorKind, string> = {
  invalid: 'invalid_request',
  unauthorized: 'unauthorized',
  permission_denied: 'permission_denied',
  not_found: 'not_found',
  conflict: 'conflict',
  sealed: 'sealed',
  audit_unavailable: 'audit_unavailable',
};

/** The answer for a refusal of the secrets engine. */
export function fromVaultError(error: VaultError): ApiError {
  return new ApiError(error.status, VAULT_ERROR_CODES[error.kind], error.message);
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** The general code of a status, for refusals that carry only a status. */
export function codeOfStatus(status: number): string {
  return CODES_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
}

/** The answer for a refusal of the connector runtime: Kafka Connect's refusals carry a status only. */
export function fromConnectError(error: ConnectError): ApiError {
  return new ApiError(error.status, codeOfStatus(error.status), error.message);
}

/**
 * The answer for a refusal of the schema registry. Confluent's own code (40401: subject not
 * found) goes in `details.error_code`, which the registry's wire format answers with.
 */
export function fromSchemaRegistryError(error: SchemaRegistryError): ApiError {
  return new ApiError(error.status, codeOfStatus(error.status), error.message, {
    error_code: error.errorCode,
  });
}

interface BodyParserError {
  type?: string;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string';
}

/**
 * The answer for a body express's JSON parser refused as too large (`payload_too_large`) or as
 * not JSON (`invalid_json`); undefined for any other failure.
 */
export function fromBodyParserError(error: unknown, limitBytes: number): ApiError | undefined {
  if (!isBodyParserError(error)) return undefined;
  if (error.type === 'entity.too.large') return payloadTooLarge(limitBytes);
  if (error.type === 'entity.parse.failed') {
    return badRequest(`request body is not valid JSON: ${error.message}`, { code: 'invalid_json' });
  }
  return undefined;
}

/** The error as a client sees it, or `undefined` for a failure that must not be described. */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreError) return fromStoreError(error);
  if (error instanceof AccountError) return fromAccountError(error);
  return undefined;
}

export interface GeneralErrorBody {
  error: { code: string; message: string; details: ErrorDetails };
  meta: { request_id: string };
}

export type FlatErrorBody = { error: string; message: string } & Record<string, unknown>;

/**
 * The body of an error response. The flat style carries the request id only in the
 * `X-Request-Id` header: the specification fixes its fields to `error`, `message` and extras.
 */
export function renderError(
  error: ApiError,
  style: ErrorStyle,
  requestId: string,
): GeneralErrorBody | FlatErrorBody {
  if (style === 'flat') return { error: error.code, message: error.message, ...error.extra };
  return {
    error: { code: error.code, message: error.message, details: error.details },
    meta: { request_id: requestId },
  };
}
