import * as client from 'openid-client';
import { ProviderExchangeError, type OAuthProviderName } from './provider.js';

/**
 * The failure of an exchange as a `ProviderExchangeError`. Only the error's own message and the
 * provider's error code are kept: the causes of openid-client's errors hold response bodies.
 */
export function asExchangeError(provider: OAuthProviderName, error: unknown): ProviderExchangeError {
  if (error instanceof ProviderExchangeError) return error;
  if (error instanceof client.ResponseBodyError) {
    return new ProviderExchangeError(
      provider,
      `the provider answered ${error.status} ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`,
      error.error,
    );
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new ProviderExchangeError(provider, `the provider answered ${error.error}`, error.error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderExchangeError(provider, message);
}
