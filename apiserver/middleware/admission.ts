import type { RequestHandler } from 'express';
import { tooManyRequests } from '../errors.js';
import { requestState } from '../routing/request-state.js';
import type { Authenticator } from '../../accounts/principal.js';
import { rateLimitHeaders, type RequestRateLimiter } from './rate-limit.js';

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
): RequestHandler {
  return async (req, res, next) => {
    const state = requestState(req);
    let refusal: unknown;
    try {
      if (!state.route?.operational) state.principal = await authenticator?.(req);
    } catch (error) {
      refusal = error;
    }
    const key = state.principal
      ? `principal:${state.principal.rateLimitKey}`
      : `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    const status = await limiter.admit(key, !state.route?.operational);
    res.set(rateLimitHeaders(status));
    if (!status.allowed) throw tooManyRequests(status.retryAfterSeconds);
    if (refusal !== undefined) throw refusal;
    next();
  };
}
