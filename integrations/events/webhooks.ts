/**
 * The webhooks of an integration: the inbound one the code host delivers to, and the outbound
 * one that carries forwarded events. Derived from the Integration object, not stored.
 */
import type { Integration } from '../../crds/integration.js';
import { PLATFORM_EVENT_TYPES } from './catalogue.js';
import { destinationOf } from './destinations.js';
import { outboundWebhookId } from './event-ids.js';

export interface IntegrationWebhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  created_at: string;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** The id inbound code-host deliveries are recorded under: the one the code host integration keeps. */
export function codehostWebhookId(integration: Integration): string {
  const kept = integration.spec?.configuration?.webhook_id;
  return typeof kept === 'string' ? kept : `webhook-codehost-${integration.metadata.name}`;
}

/** The code-host events (`push`, `pull_request`, `release`) the integration subscribed to. */
export function codehostSubscriptions(integration: Integration): string[] {
  const configuration = integration.spec?.configuration ?? {};
  return strings(configuration.webhook_events) ?? strings(configuration.events) ?? [];
}

/** `{base_url}/webhooks/codehost/<integration id>`: where the code host delivers. */
export function codehostWebhookUrl(baseUrl: string, integrationId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/webhooks/codehost/${integrationId}`;
}

/** Where events go, without a path: a chat webhook URL carries its token in the path. */
function outboundUrl(integration: Integration): string {
  const configured = integration.spec?.configuration?.event_webhook_url;
  if (typeof configured === 'string') return configured;
  return `${integration.spec?.type ?? 'provider'}:events`;
}

export function integrationWebhooks(integration: Integration, baseUrl: string): IntegrationWebhook[] {
  const spec = integration.spec;
  if (!spec) return [];
  const enabled = spec.enabled !== false;
  const createdAt = integration.metadata.creationTimestamp ?? new Date(0).toISOString();
  const webhooks: IntegrationWebhook[] = [];
  if (spec.type === 'codehost') {
    webhooks.push({
      id: codehostWebhookId(integration),
      url: codehostWebhookUrl(baseUrl, integration.metadata.name),
      events: codehostSubscriptions(integration),
      enabled,
      created_at: createdAt,
    });
  }
  const forwarded = PLATFORM_EVENT_TYPES.filter((type) => destinationOf({ ...spec, enabled: true }, type));
  if (forwarded.length > 0) {
    webhooks.push({
      id: outboundWebhookId(integration.metadata.name),
      url: outboundUrl(integration),
      events: forwarded,
      enabled,
      created_at: createdAt,
    });
  }
  return webhooks;
}
