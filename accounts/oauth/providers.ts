import type { OAuthConfig } from '../../config/oauth.js';
import { createCodehostProvider } from './codehost-provider.js';
import { createIdentityProvider } from './identity-provider.js';
import type { OAuthProvider, OAuthProviderName } from './provider.js';

/** The providers this server is configured for; an absent one is not configured. */
export type OAuthProviders = Partial<Record<OAuthProviderName, OAuthProvider>>;

export function createOAuthProviders(config: OAuthConfig): OAuthProviders {
  return {
    ...(config.identity && { identity: createIdentityProvider(config.identity) }),
    ...(config.codehost && { codehost: createCodehostProvider(config.codehost) }),
  };
}
