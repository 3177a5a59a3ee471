/**
 * Why an account operation was refused. The accounts service speaks only in these; the REST
 * facade decides what each looks like on the wire (status, body, headers).
 */
export type AccountErrorReason =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'rate_limited'
  | 'unavailable';

export interface AccountErrorOptions {
  /** The machine-readable code a client branches on, e.g. `invalid_credentials`. */
  code?: string;
  /** Facts the client needs beside the message, such as the `session_token` of a 2FA challenge. */
  extra?: Record<string, unknown>;
  /** Structured facts about the refusal, such as the offending fields. */
  details?: Record<string, unknown>;
}

const DEFAULT_CODES: Record<AccountErrorReason, string> = {
  invalid: 'invalid_request',
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
  gone: 'gone',
  rate_limited: 'rate_limited',
  unavailable: 'service_unavailable',
};

export class AccountError extends Error {
  readonly code: string;
  readonly extra: Record<string, unknown>;
  readonly details: Record<string, unknown>;

  constructor(
    readonly reason: AccountErrorReason,
    message: string,
    options: AccountErrorOptions = {},
    /** Only for `rate_limited`: when the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AccountError';
    this.code = options.code ?? DEFAULT_CODES[reason];
    this.extra = options.extra ?? {};
    this.details = options.details ?? {};
  }
}

/** The request names something the service cannot accept (a weak password, a wrong code). */
export function invalidInput(message: string, options?: AccountErrorOptions): AccountError {
  return new AccountError('invalid', message, options);
}

/** The caller is not (or no longer) signed in, or their credentials are wrong. */
export function unauthenticated(
  message = 'authentication required',
  options?: AccountErrorOptions,
): AccountError {
  return new AccountError('unauthenticated', message, options);
}

export function refused(message: string, options?: AccountErrorOptions): AccountError {
  return new AccountError('forbidden', message, options);
}

export function notFound(message: string, options?: AccountErrorOptions): AccountError {
  return new AccountError('not_found', message, options);
}

export function conflicting(code: string, message: string, options?: AccountErrorOptions): AccountError {
  return new AccountError('conflict', message, { ...options, code });
}

/** What the request names existed but is spent: a used, revoked or expired link. */
export function spent(code: string, message: string): AccountError {
  return new AccountError('gone', message, { code });
}

export function throttled(retryAfterSeconds: number, message: string): AccountError {
  return new AccountError('rate_limited', message, {}, retryAfterSeconds);
}

export function unavailable(message: string, options?: AccountErrorOptions): AccountError {
  return new AccountError('unavailable', message, options);
}

/** Whether `error` says the caller's credentials were refused (as opposed to a failure of ours). */
export function isUnauthenticated(error: unknown): boolean {
  return error instanceof AccountError && error.reason === 'unauthenticated';
}
