import { errors, jwtVerify, SignJWT } from 'jose';
import { unauthenticated } from './account-error.js';
import type { AccountsDeps } from './deps.js';

const ALGORITHM = 'HS256';
export const ACCESS_TOKEN_AUDIENCE = 'cloudplane';

/** What an access token says about its bearer. */
export interface AccessClaims {
  userId: string;
  sessionId: string;
  /** The current organization when the token was issued; the authenticator reads the live one. */
  organizationId: string | undefined;
}

/** The claims of a token whose signature, issuer, audience and expiry were checked. */
export interface VerifiedAccessClaims extends AccessClaims {
  expiresAt: Date;
}

export interface SignedAccessToken {
  token: string;
  expiresAt: Date;
}

/** A JWT (HS256) with `sub`, `sid`, `org`, `iat`, `exp`, `iss` (the base URL) and `aud` `cloudplane`. */
export async function signAccessToken(deps: AccountsDeps, claims: AccessClaims): Promise<SignedAccessToken> {
  const issuedAt = Math.floor(deps.now().getTime() / 1000);
  const expiresAt = issuedAt + deps.config.accessTokenTtlSeconds;
  const token = await new SignJWT({
    sid: claims.sessionId,
    ...(claims.organizationId && { org: claims.organizationId }),
  })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setIssuer(deps.publicUrl.href)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .sign(deps.keys.accessToken);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

/**
 * Checks signature (HS256 only: a token naming another algorithm is refused), issuer, audience and
 * expiry at `deps.now()`. Throws 401 `invalid_token`; says whether the token expired, nothing more.
 */
export async function verifyAccessToken(deps: AccountsDeps, token: string): Promise<VerifiedAccessClaims> {
  try {
    const { payload } = await jwtVerify(token, deps.keys.accessToken, {
      algorithms: [ALGORITHM],
      issuer: deps.publicUrl.href,
      audience: ACCESS_TOKEN_AUDIENCE,
      currentDate: deps.now(),
      requiredClaims: ['sub', 'sid', 'exp', 'iat'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string')
      throw new errors.JWTInvalid('claims');
    return {
      userId: payload.sub,
      sessionId: payload.sid,
      organizationId: typeof payload.org === 'string' ? payload.org : undefined,
      expiresAt: new Date(payload.exp! * 1000),
    };
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      throw unauthenticated('the access token has expired; refresh it', { code: 'invalid_token' });
    }
    if (error instanceof errors.JOSEError)
      throw unauthenticated('invalid access token', { code: 'invalid_token' });
    throw error;
  }
}
