import { commaList, ConfigError, providerUrl, requiredWith, type Env } from './env.js';

/** OAuth login. A provider is configured when its client id is set, and absent otherwise. */
export interface OAuthConfig {
  /** Where a login may send the browser back to; a request's `redirect_uri` must equal one exactly. */
  redirectUris: string[];
  identity: OidcProviderConfig | undefined;
  codehost: CodehostProviderConfig | undefined;
}

/** An OpenID Connect provider, found through discovery from its issuer. */
export interface OidcProviderConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** An OAuth 2.0 provider with GitHub-style endpoints and no discovery. */
export interface CodehostProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
  emailsUrl: string;
  /** Space-separated, as sent in the authorization request. */
  scopes: string;
}

function redirectUris(env: Env): string[] {
  const name = 'CLOUDPLANE_OAUTH_REDIRECT_URIS';
  const entries = commaList(env[name]);
  for (const entry of entries) {
    const parsed = URL.canParse(entry) ? new URL(entry) : undefined;
    // The tokens are handed over in the fragment, so the URI must not bring one of its own.
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || entry.includes('#')) {
      throw new ConfigError(name, 'comma-separated http or https URLs without a fragment', entry);
    }
  }
  return entries;
}

function identityProvider(env: Env): OidcProviderConfig | undefined {
  const clientIdName = 'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID';
  const clientId = env[clientIdName]?.trim();
  if (!clientId) return undefined;
  const issuerName = 'CLOUDPLANE_OAUTH_IDENTITY_ISSUER';
  return {
    issuer: providerUrl(env, issuerName, requiredWith(env, issuerName, clientIdName)),
    clientId,
    clientSecret: requiredWith(env, 'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET', clientIdName),
  };
}

function codehostProvider(env: Env): CodehostProviderConfig | undefined {
  const clientIdName = 'CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID';
  const clientId = env[clientIdName]?.trim();
  if (!clientId) return undefined;
  const prefix = 'CLOUDPLANE_OAUTH_CODEHOST';
  return {
    clientId,
    clientSecret: requiredWith(env, `${prefix}_CLIENT_SECRET`, clientIdName),
    authorizeUrl: providerUrl(env, `${prefix}_AUTHORIZE_URL`, 'https://github.com/login/oauth/authorize'),
    tokenUrl: providerUrl(env, `${prefix}_TOKEN_URL`, 'https://github.com/login/oauth/access_token'),
    userUrl: providerUrl(env, `${prefix}_USER_URL`, 'https://api.github.com/user'),
    emailsUrl: providerUrl(env, `${prefix}_EMAILS_URL`, 'https://api.github.com/user/emails'),
    scopes:
      env[`${prefix}_SCOPES`]
        ?.split(/[\s,]+/)
        .filter((scope) => scope !== '')
        .join(' ') || 'read:user user:email',
  };
}

export function oauthConfig(env: Env): OAuthConfig {
  const identity = identityProvider(env);
  const codehost = codehostProvider(env);
  const uris = redirectUris(env);
  if ((identity || codehost) && uris.length === 0) {
    throw new ConfigError(
      'CLOUDPLANE_OAUTH_REDIRECT_URIS',
      'at least one URL when an OAuth provider is configured',
      '',
    );
  }
  return { redirectUris: uris, identity, codehost };
}
