/**
 * Checking an integration against its provider, shared by the controller (generic creates,
 * re-enabling, configuration changes) and the facade (type-specific creates answer `connected`
 * synchronously).
 */
import type { IntegrationsConfig } from '../config/integrations.js';
import type { Integration, IntegrationPhase } from '../crds/integration.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { DuplicateAccountError, readCredentials, updateCredentials } from './credentials.js';
import { PROVIDERS } from './providers/index.js';
import { ProviderError, type ProviderContext } from './providers/provider.js';

/** What checking an integration needs. */
export interface IntegrationServices {
  database: DataPlane;
  platformKey: Buffer;
  config: IntegrationsConfig;
  now: () => Date;
}

export function providerContext(services: IntegrationServices): ProviderContext {
  return { config: services.config, egress: { allowPrivate: services.config.allowPrivateEgress } };
}

/** The outcome of one check, as the status will show it. */
export interface ConnectionOutcome {
  phase: Extract<IntegrationPhase, 'connected' | 'error' | 'expired'>;
  /** PascalCase condition reason. */
  reason: string;
  message: string;
  accountKey?: string;
  /** Non-secret facts the provider told us. */
  learned?: Record<string, unknown>;
  /** True when the failure may pass by itself (the provider was unreachable). */
  transient: boolean;
}

const FAILURE_REASONS = {
  invalid: 'InvalidConfiguration',
  rejected: 'CredentialsRejected',
  expired: 'CredentialsExpired',
  unreachable: 'ProviderUnreachable',
} as const;

/** Verifies the integration's stored credentials with its provider and records the provider account. */
export async function checkConnection(
  integration: Integration,
  services: IntegrationServices,
): Promise<ConnectionOutcome> {
  const id = integration.metadata.name;
  const spec = integration.spec!;
  const credentials = await readCredentials(services.database, services.platformKey, id);
  if (credentials === undefined) {
    return {
      phase: 'error',
      reason: 'CredentialsMissing',
      message: 'no credentials are stored for this integration',
      transient: false,
    };
  }
  try {
    const verified = await PROVIDERS[spec.type].verify(
      credentials,
      spec.configuration ?? {},
      providerContext(services),
    );
    await updateCredentials(services.database, services.platformKey, id, {
      accountKey: verified.accountKey,
      now: services.now(),
    });
    return {
      phase: 'connected',
      reason: 'Connected',
      message: `the ${spec.type} provider accepted the credentials`,
      accountKey: verified.accountKey,
      learned: verified.configuration,
      transient: false,
    };
  } catch (error) {
    if (error instanceof DuplicateAccountError) {
      return {
        phase: 'error',
        reason: 'DuplicateAccount',
        message: `another ${spec.type} integration of this organization already uses this provider account`,
        transient: false,
      };
    }
    if (!(error instanceof ProviderError)) throw error;
    return {
      phase: error.failure === 'expired' ? 'expired' : 'error',
      reason: FAILURE_REASONS[error.failure],
      message: error.message,
      transient: error.failure === 'unreachable',
    };
  }
}
