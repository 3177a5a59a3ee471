import { isJsonObject } from '../json-value.js';
import { StoreError, type StoreErrorCause, type StoreErrorReason } from '../types.js';

/**
 * How a kube-apiserver's answers become `StoreError`s. The apiserver says what went wrong in a
 * `Status` object (reason, code, message, details with causes); the store keeps all of it, so an
 * error reads the same whichever backend produced it.
 */

const REASONS: ReadonlySet<string> = new Set<StoreErrorReason>([
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Invalid',
  'BadRequest',
  'Expired',
  'Gone',
  'Forbidden',
  'Unauthorized',
  'TooManyRequests',
  'InternalError',
  'ServiceUnavailable',
]);

/**
 * The store's reason for an HTTP code whose Status names a reason the store has no word for
 * (MethodNotAllowed, UnsupportedMediaType, Timeout, ...): the nearest one by code. The
 * apiserver's own message is kept, so nothing it said is lost.
 */
function reasonForCode(code: number): StoreErrorReason {
  switch (code) {
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 503:
      return 'ServiceUnavailable';
    default:
      return code >= 500 ? 'InternalError' : 'BadRequest';
  }
}

function causesOf(details: Record<string, unknown>): StoreErrorCause[] | undefined {
  if (!Array.isArray(details.causes)) return undefined;
  return details.causes.filter(isJsonObject).map((entry) => {
    const cause: StoreErrorCause = {
      message: typeof entry.message === 'string' ? entry.message : String(entry.reason ?? ''),
    };
    if (typeof entry.field === 'string') cause.field = entry.field;
    if (typeof entry.reason === 'string') cause.reason = entry.reason;
    return cause;
  });
}

export function isStatus(body: unknown): body is Record<string, unknown> {
  return isJsonObject(body) && body.kind === 'Status';
}

/** The `StoreError` a failed answer stands for: from its `Status` when it sent one, else from the code. */
export function storeErrorFromStatus(code: number, body: unknown, fallbackMessage: string): StoreError {
  if (!isStatus(body)) return new StoreError(reasonForCode(code), fallbackMessage);
  const statusCode = typeof body.code === 'number' ? body.code : code;
  const reason =
    typeof body.reason === 'string' && REASONS.has(body.reason)
      ? (body.reason as StoreErrorReason)
      : reasonForCode(statusCode);
  const message = typeof body.message === 'string' && body.message !== '' ? body.message : fallbackMessage;
  const details: StoreError['details'] = {};
  if (isJsonObject(body.details)) {
    if (typeof body.details.kind === 'string') details.kind = body.details.kind;
    if (typeof body.details.name === 'string') details.name = body.details.name;
    const causes = causesOf(body.details);
    if (causes) details.causes = causes;
  }
  return new StoreError(reason, message, details);
}

/**
 * A watch `ERROR` event. A 410 means the revision asked for is older than the history the
 * apiserver keeps, whatever reason it gives (`Expired` or the older `Gone`): the caller relists.
 */
export function storeErrorFromWatchEvent(status: unknown): StoreError {
  const error = storeErrorFromStatus(500, status, 'the watch ended with an error');
  if (error.code !== 410) return error;
  return new StoreError('Expired', error.message, error.details);
}

/** Node's network error codes for a request that never reached the server: safe to send again. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export function wasNeverSent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

export function unreachable(server: string, error: unknown): StoreError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError('ServiceUnavailable', `cannot reach the Kubernetes API at ${server}: ${detail}`);
}
