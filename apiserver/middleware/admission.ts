import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooManyRequests } from '../errors.js';
import { requestState } from '../routing/request-state.js';
import type { Authenticator } from '../../accounts/principal.js';
import { setRateLimitHeaders, type RateLimitStatus, type RequestRateLimiter } from './rate-limit.js';

/** Admits a request or throws its refusal; answers synchronously when nothing had to be awaited. */
export type Admission = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** The client's address as the forwarding headers this deployment trusts give it. */
export type ClientAddress = (req: IncomingMessage) => string;

/** Reports where the caller stands, then refuses if the budget, or else the credentials, did. */
function settle(res: ServerResponse, status: RateLimitStatus, refusal: unknown): void {
  setRateLimitHeaders(res, status);
  if (!status.allowed) throw tooManyRequests(status.retryAfterSeconds);
  if (refusal !== undefined) throw refusal;
}

/**
 * Establishes who is calling, then counts the request against that caller's budget: per
 * credential when authenticated, per client address otherwise. Requests with bad credentials are
 * counted against the address before their 401, so guessing credentials is throttled too.
 * Machine endpoints (`/metrics`, `/health`) ignore credentials, which lets a scraper send its
 * own bearer token there.
 */
export function admission(
  authenticator: Authenticator | undefined,
  limiter: RequestRateLimiter,
  clientAddress: ClientAddress,
): Admission {
  const count = (req: IncomingMessage, res: ServerResponse, refusal: unknown): void | Promise<void> => {
    const state = requestState(req);
    const key = state.principal
      ? `principal:${state.principal.rateLimitKey}`
      : `address:${clientAddress(req)}`;
    const status = limiter.admit(key, !state.route?.operational);
    // A closure only when the count had to be awaited (PostgreSQL): in memory it is answered at once.
    return status instanceof Promise
      ? status.then((reached) => settle(res, reached, refusal))
      : settle(res, status, refusal);
  };
  return (req, res) => {
    const state = requestState(req);
    if (state.route?.operational || !authenticator) return count(req, res, undefined);
    return authenticator(req).then(
      (principal) => {
        state.principal = principal;
        return count(req, res, undefined);
      },
      (refusal: unknown) => count(req, res, refusal),
    );
  };
}
