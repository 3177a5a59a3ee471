import { withLogger, type AccountsDeps } from '../../../accounts/deps.js';
import {
  beginOAuthLogin,
  completeOAuthLogin,
  type OAuthLoginDeps,
} from '../../../accounts/oauth/oauth-login.js';
import { OAUTH_PROVIDER_NAMES } from '../../../accounts/oauth/provider.js';
import type { OAuthProviders } from '../../../accounts/oauth/providers.js';
import type { AccountsRouteServices } from './accounts-services.js';
import type { ObjectSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteContext, type RouteModule, type PublicContext } from '../../routing/route.js';

const PROVIDER_PARAMS = {
  type: 'object',
  required: ['provider'],
  properties: {
    provider: { type: 'string', description: `The OAuth provider: ${OAUTH_PROVIDER_NAMES.join(' or ')}` },
  },
} as const satisfies ObjectSchema;

interface ProviderParams {
  provider: string;
}

interface StartQuery {
  redirect_uri: string;
  state: string;
}

interface CallbackQuery {
  state: string;
  code?: string;
  error?: string;
  iss?: string;
}

function redirectTo(location: string) {
  // The callback URL carries the provider's code: no page we send the browser to may see it.
  return { status: 302, headers: { Location: location, 'Referrer-Policy': 'no-referrer' } };
}

/** What the OAuth login routes need beyond the core services. */
export interface OAuthRouteServices extends AccountsRouteServices {
  oauth: { providers: OAuthProviders; redirectUris: readonly string[] };
}

function loginDeps(
  accounts: AccountsDeps,
  oauth: { providers: OAuthProviders; redirectUris: readonly string[] },
  ctx: Pick<RouteContext, 'logger'>,
): OAuthLoginDeps {
  return { accounts: withLogger(accounts, () => ctx.logger), ...oauth };
}

async function beginOAuthLoginRedirect(
  ctx: PublicContext<{ params: ProviderParams; query: StartQuery }, OAuthRouteServices>,
) {
  const location = await beginOAuthLogin(loginDeps(ctx.accounts, ctx.oauth, ctx), {
    provider: ctx.params.provider,
    redirectUri: ctx.query.redirect_uri,
    clientState: ctx.query.state,
  });
  return redirectTo(location);
}

async function finishOAuthLogin(
  ctx: PublicContext<{ params: ProviderParams; query: CallbackQuery }, OAuthRouteServices>,
) {
  const location = await completeOAuthLogin(loginDeps(ctx.accounts, ctx.oauth, ctx), {
    provider: ctx.params.provider,
    state: ctx.query.state,
    code: ctx.query.code,
    error: ctx.query.error,
    iss: ctx.query.iss,
    userAgent: ctx.headers['user-agent'],
    ipAddress: ctx.clientIp,
  });
  return redirectTo(location);
}

/**
 * OAuth login: `GET /v1/auth/oauth/:provider` sends the browser to the provider, and
 * `GET /v1/auth/oauth/:provider/callback` brings it back to the client's redirect URI with a
 * session's tokens (or an OAuth error) in the fragment. Providers come from `config.oauth`; one
 * without a client id answers 404 `provider_not_configured`.
 */
export const oauthRoutes: RouteModule<OAuthRouteServices> = {
  area: 'accounts',
  routes: [
    defineRoute<{ params: ProviderParams; query: StartQuery }, OAuthRouteServices>({
      method: 'get',
      path: '/v1/auth/oauth/:provider',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Begin an OAuth login: redirects to the provider',
      description:
        'Sends the browser to the provider with PKCE (S256) and, for OpenID Connect, a nonce. ' +
        "`redirect_uri` must equal one of the URIs the server allows; `state` is the client's " +
        'CSRF token, returned with the result.',
      request: {
        params: PROVIDER_PARAMS,
        query: {
          type: 'object',
          required: ['redirect_uri', 'state'],
          properties: {
            redirect_uri: { type: 'string', minLength: 1, maxLength: 2048 },
            state: { type: 'string', minLength: 8, maxLength: 512 },
          },
        },
      },
      responses: {
        302: { description: "Redirect to the provider's authorization endpoint" },
        400: { description: '`invalid_redirect_uri`, or a missing or malformed parameter' },
        404: { description: '`unknown_provider` or `provider_not_configured`' },
        503: { description: '`provider_unavailable`: the provider could not be reached' },
      },
      handler: beginOAuthLoginRedirect,
    }),
    defineRoute<{ params: ProviderParams; query: CallbackQuery }, OAuthRouteServices>({
      method: 'get',
      path: '/v1/auth/oauth/:provider/callback',
      area: 'accounts',
      auth: 'public',
      tags: ['accounts'],
      summary: 'Finish an OAuth login: redirects to the client with a token',
      description:
        'Where the provider returns the browser. Redirects to the redirect URI of the login with ' +
        '`token`, `refresh_token`, `expires_at`, `token_type` and `state` in the fragment, or ' +
        'with `error` (`access_denied`, `email_not_verified`, `server_error`, …) and `state`.',
      request: {
        params: PROVIDER_PARAMS,
        query: {
          type: 'object',
          required: ['state'],
          properties: {
            state: { type: 'string', minLength: 1, maxLength: 512 },
            code: { type: 'string', minLength: 1, maxLength: 2048 },
            error: { type: 'string', minLength: 1, maxLength: 256 },
            iss: { type: 'string', minLength: 1, maxLength: 2048 },
          },
        },
      },
      responses: {
        302: { description: 'Redirect to the redirect URI with the result in the fragment' },
        400: { description: "`invalid_state`: unknown, expired, already used or another provider's" },
        404: { description: '`unknown_provider` or `provider_not_configured`' },
      },
      handler: finishOAuthLogin,
    }),
  ],
};
