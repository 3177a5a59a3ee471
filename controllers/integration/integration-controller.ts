/**
 * Reconciles Integrations: holds a finalizer so deleting one removes its credentials (and its
 * codehost webhooks), checks the credentials with the provider whenever the spec changed or the
 * integration has not been checked yet, and reports the phase: `connected`, `error`, `expired`,
 * or `disconnected` while disabled.
 */
import { connectedStatus, disconnectedStatus, needsCheck, verifiedOutcome } from './engine.js';
import type { Integration } from '../../crds/integration.js';
import { INTEGRATION } from '../../crds/integration.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { removeRepositoryHooks } from '../../integrations/codehost-hooks.js';
import { checkConnection, providerContext, type IntegrationServices } from '../../integrations/connection.js';
import { deleteCredentials, readCredentials } from '../../integrations/credentials.js';
import { pendingVerification, readActivity } from '../../integrations/activity.js';

/** Held while the integration's credentials exist in the data plane. */
export const INTEGRATION_CREDENTIALS_FINALIZER = 'cloudplane.dev/integration-credentials';

/** How soon an integration whose provider could not be reached is checked again. */
const UNREACHABLE_RETRY_MS = 60_000;

export function integrationController(services: IntegrationServices): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace, name }, { store, cache, logger, clock }) => {
    let integration = cache.get<Integration>(INTEGRATION, namespace, name);
    if (integration === undefined) return;
    const finalizers = integration.metadata.finalizers ?? [];
    if (integration.metadata.deletionTimestamp) {
      if (!finalizers.includes(INTEGRATION_CREDENTIALS_FINALIZER)) return;
      if (integration.spec?.type === 'codehost') {
        const credentials = await readCredentials(services.database, services.platformKey, name);
        await removeRepositoryHooks(
          credentials,
          integration.spec.configuration ?? {},
          providerContext(services),
          logger,
        );
      }
      await deleteCredentials(services.database, name);
      await store.update(INTEGRATION, {
        ...integration,
        metadata: {
          ...integration.metadata,
          finalizers: finalizers.filter((entry) => entry !== INTEGRATION_CREDENTIALS_FINALIZER),
        },
      });
      logger.info('integration credentials removed');
      return;
    }
    if (!finalizers.includes(INTEGRATION_CREDENTIALS_FINALIZER)) {
      integration = await store.update(INTEGRATION, {
        ...integration,
        metadata: { ...integration.metadata, finalizers: [...finalizers, INTEGRATION_CREDENTIALS_FINALIZER] },
      });
    }
    if (integration.spec?.enabled === false) {
      await writeStatusIfChanged(
        store,
        INTEGRATION,
        integration,
        disconnectedStatus(integration, clock.now()),
      );
      return;
    }
    const activity = (await readActivity(services.database, [name])).get(name) ?? {};
    const verification = pendingVerification(integration, activity);
    if (verification !== undefined) {
      // The API verified these credentials when it created the object: checking again would
      // repeat the provider's side effects (a chat verification posts to every channel).
      await writeStatusIfChanged(
        store,
        INTEGRATION,
        integration,
        connectedStatus(integration, verifiedOutcome(integration, verification), new Date(verification.at)),
      );
      logger.info('integration verified at creation');
      return;
    }
    if (!needsCheck(integration)) return;
    const outcome = await checkConnection(integration, services);
    await writeStatusIfChanged(
      store,
      INTEGRATION,
      integration,
      connectedStatus(integration, outcome, clock.now()),
    );
    logger.info({ phase: outcome.phase, reason: outcome.reason }, 'integration checked');
    return outcome.transient ? { requeueAfterMs: UNREACHABLE_RETRY_MS } : undefined;
  };
  return { name: 'integration', for: INTEGRATION, reconcile };
}
