/**
 * The Integration kind's decisions, pure: the status after a check or while disabled, and whether
 * the provider must be asked again. The controller reads, asks the provider, and writes what
 * these answer.
 */
import type { Integration, IntegrationStatus } from '../../crds/integration.js';
import { findCondition, setCondition } from '../runtime/conditions.js';
import type { ConnectionOutcome } from '../../integrations/connection.js';
import type { IntegrationVerification } from '../../integrations/activity.js';

/** The status after a check: the phase, the Ready condition and the error count. */
export function connectedStatus(
  integration: Integration,
  outcome: ConnectionOutcome,
  now: Date,
): IntegrationStatus {
  const current = integration.status ?? {};
  const failed = outcome.phase !== 'connected';
  return {
    ...current,
    phase: outcome.phase,
    observedGeneration: integration.metadata.generation,
    conditions: setCondition(
      current.conditions,
      {
        type: 'Ready',
        status: failed ? 'False' : 'True',
        reason: outcome.reason,
        message: outcome.message,
        observedGeneration: integration.metadata.generation,
      },
      now,
    ),
    lastSync: failed ? current.lastSync : now.toISOString(),
    errorCount: (current.errorCount ?? 0) + (failed ? 1 : 0),
    ...(failed ? { lastError: outcome.message } : {}),
    ...(outcome.accountKey === undefined ? {} : { accountKey: outcome.accountKey }),
  };
}

/** The status of a disabled integration. */
export function disconnectedStatus(integration: Integration, now: Date): IntegrationStatus {
  const current = integration.status ?? {};
  return {
    ...current,
    phase: 'disconnected',
    observedGeneration: integration.metadata.generation,
    conditions: setCondition(
      current.conditions,
      {
        type: 'Ready',
        status: 'False',
        reason: 'Disabled',
        message: 'the integration is disabled',
        observedGeneration: integration.metadata.generation,
      },
      now,
    ),
  };
}

/** Whether the provider must be asked again: a new generation, never checked, or unreachable last time. */
export function needsCheck(integration: Integration): boolean {
  const status = integration.status;
  if (status?.observedGeneration !== integration.metadata.generation) return true;
  if (status?.phase === undefined || status.phase === 'pending' || status.phase === 'disconnected')
    return true;
  return findCondition(status.conditions, 'Ready')?.reason === 'ProviderUnreachable';
}

/** The outcome of the verification the API made when it created the integration. */
export function verifiedOutcome(
  integration: Integration,
  verification: IntegrationVerification,
): ConnectionOutcome {
  return {
    phase: 'connected',
    reason: 'Connected',
    message: `the ${integration.spec?.type} provider accepted the credentials`,
    ...(verification.accountKey === null ? {} : { accountKey: verification.accountKey }),
    transient: false,
  };
}
