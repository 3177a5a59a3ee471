/**
 * The request each destination receives for an event: the event itself as JSON for a plain
 * webhook, or the provider's own protocol (integrations/providers) for the others.
 */
import type { IntegrationCredentials } from '../credentials.js';
import { PROVIDERS } from '../providers/index.js';
import type { Destination } from './destinations.js';
import {
  JSON_HEADERS,
  type EventToSend,
  type ProviderEndpoints,
  type ProviderRequest,
} from './forwarding.js';

export function providerRequest(
  destination: Destination,
  event: EventToSend,
  configuration: Record<string, unknown>,
  credentials: IntegrationCredentials | undefined,
  endpoints: ProviderEndpoints,
): ProviderRequest {
  if (destination.kind === 'webhook') {
    return {
      url: destination.url,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        type: event.type,
        timestamp: event.createdAt,
        data: { subject: event.subject, organization_id: event.organizationId, ...event.payload },
      }),
    };
  }
  const forwarding = PROVIDERS[destination.type].events;
  if (!forwarding) throw new Error(`${destination.type} integrations forward no events`);
  return forwarding.request(destination.target, event, configuration, credentials, endpoints);
}
