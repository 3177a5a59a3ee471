/**
 * The repository webhooks of a codehost integration: created at a type-specific create, removed
 * when the integration is deleted. `configuration.hooks` maps each repository to the provider's
 * hook id so the removal knows what to remove.
 */
import type { Logger } from '../observability/logger.js';
import type { IntegrationCredentials } from './credentials.js';
import { accessToken, createRepositoryWebhook, deleteRepositoryWebhook } from './providers/codehost.js';
import type { ProviderContext } from './providers/provider.js';

/** Where a codehost integration's deliveries arrive. */
export function codehostWebhookUrl(baseUrl: string, integrationId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/webhooks/codehost/${integrationId}`;
}

/** Creates one webhook per repository; answers repository → hook id. */
export async function installRepositoryHooks(
  token: string,
  repositories: readonly string[],
  hook: { url: string; secret: string; events: readonly string[] },
  context: ProviderContext,
): Promise<Record<string, number>> {
  const hooks: Record<string, number> = {};
  for (const repository of repositories) {
    hooks[repository] = await createRepositoryWebhook(token, repository, hook, context);
  }
  return hooks;
}

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
