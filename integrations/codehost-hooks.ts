/**
 * The removal of a codehost integration's repository webhooks when it is deleted (its create
 * makes them: `installWebhooks` in providers/codehost.ts). `configuration.hooks` maps each
 * repository to the provider's hook id so the removal knows what to remove.
 */
import type { Logger } from '../observability/logger.js';
import type { IntegrationCredentials } from './credentials.js';
import { accessToken, deleteRepositoryWebhook } from './providers/codehost.js';
import type { ProviderContext } from './providers/provider.js';

function hooksOf(configuration: Record<string, unknown>): [string, number][] {
  const hooks = configuration.hooks;
  if (hooks === null || typeof hooks !== 'object') return [];
  return Object.entries(hooks).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
}

/**
 * Removes the integration's repository webhooks, best effort: a provider that refuses or cannot
 * be reached is logged, and the integration is deleted all the same.
 */
export async function removeRepositoryHooks(
  credentials: IntegrationCredentials | undefined,
  configuration: Record<string, unknown>,
  context: ProviderContext,
  logger: Logger,
): Promise<void> {
  const hooks = hooksOf(configuration);
  if (hooks.length === 0) return;
  try {
    const token = await accessToken(credentials ?? {}, configuration, context);
    for (const [repository, hookId] of hooks) {
      await deleteRepositoryWebhook(token, repository, hookId, context);
    }
  } catch (error) {
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'codehost webhooks not removed',
    );
  }
}
