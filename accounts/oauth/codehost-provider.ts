import * as client from 'openid-client';
import type { CodehostProviderConfig } from '../../config/oauth.js';
import { asExchangeError } from './exchange-errors.js';
import {
  normaliseEmail,
  optionalText,
  ProviderExchangeError,
  type AuthorizationRequest,
  type AuthorizationResponse,
  type OAuthProvider,
  type ProviderProfile,
} from './provider.js';

const TIMEOUT_SECONDS = 10;

interface CodehostUser {
  id: string;
  login: string | undefined;
  name: string | undefined;
  avatarUrl: string | undefined;
}

function parseUser(body: unknown): CodehostUser {
  const user = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof user.id !== 'number' && typeof user.id !== 'string') {
    throw new ProviderExchangeError('codehost', 'the user endpoint answered without an id');
  }
  return {
    id: String(user.id),
    login: optionalText(user.login),
    name: optionalText(user.name),
    avatarUrl: optionalText(user.avatar_url),
  };
}

/** The primary address, when the provider has verified it; a secondary one never stands in. */
function primaryVerifiedEmail(body: unknown): string | undefined {
  if (!Array.isArray(body)) {
    throw new ProviderExchangeError('codehost', 'the e-mails endpoint did not answer a list');
  }
  const primary = (body as unknown[]).find(
    (entry): entry is Record<string, unknown> =>
      typeof entry === 'object' && entry !== null && (entry as Record<string, unknown>).primary === true,
  );
  return primary?.verified === true ? normaliseEmail(primary.email) : undefined;
}

/**
 * The `codehost` provider: OAuth 2.0 with GitHub's endpoints (or any server shaped like them),
 * without discovery and without ID tokens. Who signed in comes from the user endpoint; the
 * address from the e-mails endpoint.
 */
export function createCodehostProvider(config: CodehostProviderConfig): OAuthProvider {
  const settings = new client.Configuration(
    {
      issuer: new URL(config.authorizeUrl).origin,
      authorization_endpoint: config.authorizeUrl,
      token_endpoint: config.tokenUrl,
    },
    config.clientId,
    config.clientSecret,
  );
  settings.timeout = TIMEOUT_SECONDS;
  // Configuration only lets http through for loopback hosts (see cli/config.ts).
  if ([config.authorizeUrl, config.tokenUrl].some((url) => new URL(url).protocol === 'http:')) {
    client.allowInsecureRequests(settings);
  }

  async function readApi(url: string, accessToken: string): Promise<unknown> {
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'cloudplane',
      },
      signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ProviderExchangeError('codehost', `${new URL(url).pathname} answered ${response.status}`);
    }
    return response.json();
  }

  return {
    name: 'codehost',
    usesNonce: false,

    async authorizationUrl(request: AuthorizationRequest): Promise<URL> {
      return client.buildAuthorizationUrl(settings, {
        redirect_uri: request.callbackUrl,
        scope: config.scopes,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    async fetchProfile(response: AuthorizationResponse): Promise<ProviderProfile> {
      try {
        const tokens = await client.authorizationCodeGrant(settings, response.callbackUrl, {
          pkceCodeVerifier: response.codeVerifier,
          expectedState: response.state,
        });
        const [user, emails] = await Promise.all([
          readApi(config.userUrl, tokens.access_token),
          readApi(config.emailsUrl, tokens.access_token),
        ]);
        const profile = parseUser(user);
        return {
          subject: profile.id,
          verifiedEmail: primaryVerifiedEmail(emails),
          name: profile.name ?? profile.login,
          avatarUrl: profile.avatarUrl,
        };
      } catch (error) {
        throw asExchangeError('codehost', error);
      }
    },
  };
}
