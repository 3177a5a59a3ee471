import type { IncomingHttpHeaders } from 'node:http';
import { refused, unauthenticated } from './account-error.js';
import type { Authenticator, Principal } from './principal.js';
import { verifyAccessToken } from './access-tokens.js';
import { resolveApiKey, touchApiKey, type ResolvedApiKey } from './api-keys.js';
import { CredentialCache, type ResolvedCredential } from './credential-cache.js';
import type { AccountsDeps } from './deps.js';
import { ROLE_SCOPES } from './roles.js';
import { findLiveSession, touchSession, type LiveSession } from './sessions.js';

/** The session behind a user principal. */
export interface UserSession {
  userId: string;
  sessionId: string;
}

const sessions = new WeakMap<Principal, UserSession>();

/** The caller's session; 403 for an API key, since account operations need the user themself. */
export function requireUserSession(principal: Principal): UserSession {
  const session = sessions.get(principal);
  if (!session) throw refused('this operation needs a signed-in user (a bearer token), not an API key');
  return session;
}

type Credential = { kind: 'bearer'; token: string } | { kind: 'api_key'; key: string };

function credentialOf(headers: IncomingHttpHeaders): Credential | undefined {
  const authorization = headers.authorization?.trim();
  const apiKeyHeader = headers['x-api-key']?.toString().trim();
  if (authorization && apiKeyHeader) {
    throw unauthenticated('send one credential: either Authorization or X-API-Key', {
      code: 'invalid_token',
    });
  }
  if (apiKeyHeader) return { kind: 'api_key', key: apiKeyHeader };
  if (!authorization) return undefined;
  const match = /^(\S+)\s+(\S+)$/.exec(authorization);
  const scheme = match?.[1]?.toLowerCase();
  if (match?.[2] && scheme === 'bearer') return { kind: 'bearer', token: match[2] };
  if (match?.[2] && scheme === 'apikey') return { kind: 'api_key', key: match[2] };
  throw unauthenticated('the Authorization header must be "Bearer <token>" or "ApiKey <key>"', {
    code: 'invalid_token',
  });
}

/** A bearer token found good: its principal and the live session behind it. */
interface ResolvedBearer {
  principal: Principal;
  session: LiveSession;
}

async function resolveBearer(deps: AccountsDeps, token: string): Promise<ResolvedCredential<ResolvedBearer>> {
  const claims = await verifyAccessToken(deps, token);
  const session = await findLiveSession(deps, claims.sessionId);
  if (!session || session.userId !== claims.userId) {
    throw unauthenticated('the session of this token has ended; sign in again', { code: 'invalid_token' });
  }
  const principal: Principal = {
    kind: 'user',
    id: session.userId,
    userId: session.userId,
    organizationId: session.role ? session.organizationId : undefined,
    scopes: session.role ? [...ROLE_SCOPES[session.role]] : [],
    rateLimitKey: `user:${session.userId}`,
  };
  sessions.set(principal, { userId: session.userId, sessionId: session.sessionId });
  return {
    value: { principal, session },
    validUntil: Math.min(claims.expiresAt.getTime(), Date.parse(session.expiresAt)),
  };
}

async function resolveKey(deps: AccountsDeps, key: string): Promise<ResolvedCredential<ResolvedApiKey>> {
  const resolved = await resolveApiKey(deps, key);
  return {
    value: resolved,
    validUntil: resolved.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(resolved.expiresAt),
  };
}

/**
 * Resolves `Authorization: Bearer <access token>`, `Authorization: ApiKey <key>` or
 * `X-API-Key: <key>`. A bearer token is honoured only while its session is live, so logout and
 * revocation take effect at once; a user's scopes are those of their role in their current
 * organization. Resolutions are kept per replica until the data plane's credential epoch moves
 * (see `CredentialCache`); activity is still recorded once a minute.
 */
export function createAuthenticator(deps: AccountsDeps): Authenticator {
  const bearers = new CredentialCache<ResolvedBearer>(deps.database);
  const keys = new CredentialCache<ResolvedApiKey>(deps.database);
  return async ({ headers }) => {
    const credential = credentialOf(headers);
    if (!credential) return undefined;
    if (credential.kind === 'bearer') {
      const { principal, session } = await bearers.resolve(credential.token, deps.now(), () =>
        resolveBearer(deps, credential.token),
      );
      await touchSession(deps, session);
      return principal;
    }
    const key = await keys.resolve(credential.key, deps.now(), () => resolveKey(deps, credential.key));
    await touchApiKey(deps, key);
    return key.principal;
  };
}
