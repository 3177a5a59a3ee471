/** The OAuth login providers the API knows, as they appear in `/v1/auth/oauth/:provider`. */
export const OAUTH_PROVIDER_NAMES = ['codehost', 'identity'] as const;

export type OAuthProviderName = (typeof OAUTH_PROVIDER_NAMES)[number];

export function isOAuthProviderName(name: string): name is OAuthProviderName {
  return (OAUTH_PROVIDER_NAMES as readonly string[]).includes(name);
}

/** Who signed in, as the provider vouches for it. */
export interface ProviderProfile {
  /** The provider's stable id of the account: the ID token's `sub`, or the numeric user id. */
  subject: string;
  /** Lowercase; undefined when the provider holds no verified address for the account. */
  verifiedEmail: string | undefined;
  name: string | undefined;
  avatarUrl: string | undefined;
}

/** What goes into the redirect to the provider. */
export interface AuthorizationRequest {
  /** Our callback, `{base_url}/v1/auth/oauth/<provider>/callback`. */
  callbackUrl: string;
  state: string;
  codeChallenge: string;
  /** Only for providers that use one (`usesNonce`). */
  nonce: string | undefined;
}

/** What came back to the callback, with the checks that bind it to our request. */
export interface AuthorizationResponse {
  /** The callback URL with the provider's `code`, `state` and, when sent, `iss`. */
  callbackUrl: URL;
  state: string;
  codeVerifier: string;
  nonce: string | undefined;
}

export interface OAuthProvider {
  readonly name: OAuthProviderName;
  /** OpenID Connect binds its ID token to a nonce; plain OAuth 2.0 has none. */
  readonly usesNonce: boolean;
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  /**
   * Exchanges the code (with the PKCE verifier) and reads who signed in. Throws
   * `ProviderExchangeError` when the provider refuses or answers something unusable.
   */
  fetchProfile(response: AuthorizationResponse): Promise<ProviderProfile>;
}

/**
 * The provider refused the exchange or answered something we cannot use. The message describes
 * the failure without any code, token or secret, so it can be logged.
 */
export class ProviderExchangeError extends Error {
  constructor(
    readonly provider: OAuthProviderName,
    message: string,
    /** The OAuth error code the provider sent, when it sent one. */
    readonly oauthError?: string,
  ) {
    super(message);
    this.name = 'ProviderExchangeError';
  }
}

/** A normalised address, or undefined when the value is not a usable one. */
export function normaliseEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(email) ? email : undefined;
}

export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
