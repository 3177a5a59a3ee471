import * as client from 'openid-client';
import { invalidInput, notFound, unavailable } from '../account-error.js';
import type { AccountsDeps } from '../deps.js';
import { startSession } from '../sessions.js';
import { createTwoFactorChallenge } from '../two-factor-challenges.js';
import { userForProviderLogin } from './identity-links.js';
import { claimPendingLogin, savePendingLogin } from './login-states.js';
import {
  isOAuthProviderName,
  OAUTH_PROVIDER_NAMES,
  ProviderExchangeError,
  type OAuthProvider,
  type ProviderProfile,
} from './provider.js';
import type { OAuthProviders } from './providers.js';

export interface OAuthLoginDeps {
  accounts: AccountsDeps;
  providers: OAuthProviders;
  /** `CLOUDPLANE_OAUTH_REDIRECT_URIS`: where a login may send the browser back to. */
  redirectUris: readonly string[];
}

export interface LoginStart {
  provider: string;
  /** Must equal an entry of `CLOUDPLANE_OAUTH_REDIRECT_URIS`. */
  redirectUri: string;
  /** The client's CSRF token, returned with the result. */
  clientState: string;
}

export interface LoginCallback {
  provider: string;
  state: string;
  code: string | undefined;
  /** The provider's error code, when the login did not happen (`access_denied`). */
  error: string | undefined;
  /** The issuer the provider names in its response (RFC 9207), when it sends one. */
  iss: string | undefined;
  userAgent: string | undefined;
  ipAddress: string;
}

/**
 * Error codes of RFC 6749 §4.1.2.1 and OpenID Connect that a provider may send back; they reach
 * the client as sent. Anything else becomes `server_error`.
 */
const PROVIDER_ERRORS = new Set([
  'access_denied',
  'invalid_request',
  'unauthorized_client',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
]);

function callbackUrl(deps: OAuthLoginDeps, provider: string): string {
  return `${deps.accounts.publicUrl.href}/v1/auth/oauth/${provider}/callback`;
}

function configuredProvider(deps: OAuthLoginDeps, name: string): OAuthProvider {
  if (!isOAuthProviderName(name)) {
    throw notFound(`no OAuth provider "${name}"; the providers are ${OAUTH_PROVIDER_NAMES.join(', ')}`, {
      code: 'unknown_provider',
    });
  }
  const provider = deps.providers[name];
  if (!provider) {
    throw notFound(`OAuth login through ${name} is not configured on this server`, {
      code: 'provider_not_configured',
    });
  }
  return provider;
}

/** The redirect back to the client; results travel in the fragment, which no server ever logs. */
function clientRedirect(redirectUri: string, result: Record<string, string>): string {
  const target = new URL(redirectUri);
  target.hash = new URLSearchParams(result).toString();
  return target.toString();
}

/**
 * Begins a login: checks the provider and the redirect URI, records the pending login (PKCE
 * verifier, nonce, the client's state) and answers the provider's authorization URL.
 */
export async function beginOAuthLogin(deps: OAuthLoginDeps, start: LoginStart): Promise<string> {
  const provider = configuredProvider(deps, start.provider);
  if (!deps.redirectUris.includes(start.redirectUri)) {
    throw invalidInput('redirect_uri is not one of the redirect URIs this server allows', {
      code: 'invalid_redirect_uri',
    });
  }
  const state = client.randomState();
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = provider.usesNonce ? client.randomNonce() : undefined;
  let authorizationUrl: URL;
  try {
    authorizationUrl = await provider.authorizationUrl({
      callbackUrl: callbackUrl(deps, provider.name),
      state,
      codeChallenge: await client.calculatePKCECodeChallenge(codeVerifier),
      nonce,
    });
  } catch (error) {
    if (!(error instanceof ProviderExchangeError)) throw error;
    deps.accounts.logger.warn(
      { provider: provider.name, reason: error.message },
      'OAuth provider unreachable',
    );
    throw unavailable(`the ${provider.name} provider cannot be reached; retry shortly`, {
      code: 'provider_unavailable',
    });
  }
  await savePendingLogin(
    deps.accounts.database,
    state,
    {
      provider: provider.name,
      clientState: start.clientState,
      redirectUri: start.redirectUri,
      codeVerifier,
      nonce,
    },
    deps.accounts.now(),
  );
  return authorizationUrl.toString();
}

/**
 * Finishes a login at the provider's callback and answers where to send the browser: the client's
 * redirect URI with the session's tokens in the fragment, or with an OAuth error there
 * (`access_denied`, `email_not_verified`, `server_error`, or `2fa_required` with a `session_token`
 * for a user with two-factor authentication). A state that is unknown, expired, used
 * or another provider's is refused with 400 `invalid_state`, since there is nowhere safe to go.
 */
export async function completeOAuthLogin(deps: OAuthLoginDeps, callback: LoginCallback): Promise<string> {
  const provider = configuredProvider(deps, callback.provider);
  if (callback.code === undefined && callback.error === undefined) {
    throw invalidInput('the callback needs a code or an error', { code: 'invalid_request' });
  }
  const { logger } = deps.accounts;
  const login = await claimPendingLogin(
    deps.accounts.database,
    provider.name,
    callback.state,
    deps.accounts.now(),
  );
  if (!login) {
    throw invalidInput('the login state is unknown, expired or already used; start the login again', {
      code: 'invalid_state',
    });
  }
  const fail = (error: string): string =>
    clientRedirect(login.redirectUri, { error, state: login.clientState });

  if (callback.error !== undefined) {
    logger.info(
      { provider: provider.name, providerError: callback.error },
      'OAuth login ended at the provider',
    );
    return fail(PROVIDER_ERRORS.has(callback.error) ? callback.error : 'server_error');
  }

  const response = new URL(callbackUrl(deps, provider.name));
  response.searchParams.set('code', callback.code ?? '');
  response.searchParams.set('state', callback.state);
  if (callback.iss !== undefined) response.searchParams.set('iss', callback.iss);
  let profile: ProviderProfile;
  try {
    profile = await provider.fetchProfile({
      callbackUrl: response,
      state: callback.state,
      codeVerifier: login.codeVerifier,
      nonce: login.nonce,
    });
  } catch (error) {
    if (!(error instanceof ProviderExchangeError)) throw error;
    logger.warn(
      { provider: provider.name, reason: error.message, providerError: error.oauthError },
      'OAuth code exchange failed',
    );
    return fail('server_error');
  }
  const { verifiedEmail } = profile;
  if (verifiedEmail === undefined) {
    logger.info({ provider: provider.name }, 'OAuth login refused: the provider has no verified e-mail');
    return fail('email_not_verified');
  }

  const { user, via } = await userForProviderLogin(deps.accounts, provider.name, {
    ...profile,
    verifiedEmail,
  });
  if (user.two_factor_enabled) {
    // The provider stands in for the password only: the second factor is still asked, as after
    // a password login, through POST /v1/auth/2fa/verify with this session_token.
    logger.info({ provider: provider.name, userId: user.id, via }, 'OAuth login awaits the second factor');
    return clientRedirect(login.redirectUri, {
      error: '2fa_required',
      session_token: await createTwoFactorChallenge(deps.accounts, user.id),
      state: login.clientState,
    });
  }
  const tokens = await startSession(deps.accounts, {
    userId: user.id,
    userAgent: callback.userAgent,
    ipAddress: callback.ipAddress,
  });
  logger.info({ provider: provider.name, userId: user.id, via }, 'OAuth login succeeded');
  return clientRedirect(login.redirectUri, {
    token: tokens.token,
    refresh_token: tokens.refresh_token,
    expires_at: tokens.expires_at,
    token_type: 'Bearer',
    state: login.clientState,
  });
}
