import * as client from 'openid-client';
import type { OidcProviderConfig } from '../../config/oauth.js';
import { asExchangeError } from './exchange-errors.js';
import {
  normaliseEmail,
  optionalText,
  type AuthorizationRequest,
  type AuthorizationResponse,
  type OAuthProvider,
  type ProviderProfile,
} from './provider.js';

const SCOPES = 'openid email profile';
const TIMEOUT_SECONDS = 10;

/** Providers such as Cognito send `email_verified` as a string. */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

function profileOf(claims: Record<string, unknown>, subject: string): ProviderProfile {
  return {
    subject,
    verifiedEmail: isTrue(claims.email_verified) ? normaliseEmail(claims.email) : undefined,
    name: optionalText(claims.name) ?? optionalText(claims.preferred_username),
    avatarUrl: optionalText(claims.picture),
  };
}

/**
 * The `identity` provider: OpenID Connect, configured by discovery from its issuer. Discovery
 * runs on first use and is kept for the life of the process; a failed one is retried on the next
 * login. openid-client checks the ID token's signature, issuer, audience, expiry and nonce.
 */
export function createIdentityProvider(config: OidcProviderConfig): OAuthProvider {
  let discovered: Promise<client.Configuration> | undefined;
  // Configuration only lets http through for a loopback issuer (see cli/config.ts).
  const insecure = new URL(config.issuer).protocol === 'http:';

  function configuration(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, {
        execute: insecure ? [client.allowInsecureRequests] : [],
        timeout: TIMEOUT_SECONDS,
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw asExchangeError('identity', error);
      });
    return discovered;
  }

  return {
    name: 'identity',
    usesNonce: true,

    async authorizationUrl(request: AuthorizationRequest): Promise<URL> {
      const parameters: Record<string, string> = {
        redirect_uri: request.callbackUrl,
        scope: SCOPES,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      };
      if (request.nonce !== undefined) parameters.nonce = request.nonce;
      return client.buildAuthorizationUrl(await configuration(), parameters);
    },

    async fetchProfile(response: AuthorizationResponse): Promise<ProviderProfile> {
      const settings = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(settings, response.callbackUrl, {
          pkceCodeVerifier: response.codeVerifier,
          expectedState: response.state,
          expectedNonce: response.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        if (!idToken) throw new Error('the token response carried no ID token');
        if (idToken.email !== undefined || !settings.serverMetadata().userinfo_endpoint) {
          return profileOf(idToken, idToken.sub);
        }
        // Many providers release scope claims only from the UserInfo endpoint.
        const userInfo = await client.fetchUserInfo(settings, tokens.access_token, idToken.sub);
        return profileOf({ ...idToken, ...userInfo }, idToken.sub);
      } catch (error) {
        throw asExchangeError('identity', error);
      }
    },
  };
}
