import type { IncomingHttpHeaders } from 'node:http';

/** Who is calling, as the authenticator established it. */
export interface Principal {
  kind: 'user' | 'api_key' | 'system';
  id: string;
  organizationId?: string;
  /** The user behind the credential: the signed-in user, or the creator of an API key. */
  userId?: string;
  /** Granted scopes such as `vault:read`; `*` grants every scope. */
  scopes: string[];
  /** Requests with the same key share one rate-limit budget. */
  rateLimitKey: string;
}

/**
 * Resolves the credentials of a request. Answers `undefined` when the request carries none;
 * throws an `AccountError` (`unauthenticated`) when it carries credentials that are not valid.
 */
export type Authenticator = (request: { headers: IncomingHttpHeaders }) => Promise<Principal | undefined>;
