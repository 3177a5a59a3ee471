/**
 * The request each destination receives for an event, in its provider's own protocol: a
 * Slack-style incoming-webhook message, a Datadog event, a PagerDuty Events v2 trigger or
 * resolve, or the event itself as JSON for a plain webhook.
 */
import { MONITOR_API_KEY_HEADER, monitorEventsUrl } from '../providers/monitor.js';
import { pagerEnqueueUrl } from '../providers/pager.js';
import type { IntegrationCredentials } from '../credentials.js';
import { definitionOf, type PlatformEventType } from './catalogue.js';
import type { Destination } from './destinations.js';

export interface ProviderEndpoints {
  /** PagerDuty Events v2 base URL; events go to `<base>/v2/enqueue`. */
  pagerUrl: string;
  /** Monitoring site domain → API base URL. */
  monitorSites: Readonly<Record<string, string>>;
}

export interface EventToSend {
  id: string;
  organizationId: string;
  type: PlatformEventType;
  subject: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A destination that cannot be reached with what the integration holds; retrying will not help. */
export class UndeliverableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndeliverableError';
  }
}

function required(credentials: IntegrationCredentials | undefined, name: string): string {
  const value = credentials?.[name];
  if (!value) throw new UndeliverableError(`the integration has no ${name} to deliver events with`);
  return value;
}

function summaryOf(event: EventToSend): string {
  return `${definitionOf(event.type).description}: ${event.subject}`;
}

function stringTags(configuration: Record<string, unknown>): string[] {
  const tags = configuration.tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export function providerRequest(
  destination: Destination,
  event: EventToSend,
  configuration: Record<string, unknown>,
  credentials: IntegrationCredentials | undefined,
  endpoints: ProviderEndpoints,
): ProviderRequest {
  switch (destination.kind) {
    case 'webhook':
      return {
        url: destination.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          type: event.type,
          timestamp: event.createdAt,
          data: { subject: event.subject, organization_id: event.organizationId, ...event.payload },
        }),
      };
    case 'chat':
      return {
        url: required(credentials, 'webhook_url'),
        headers: JSON_HEADERS,
        body: JSON.stringify({ text: `[${event.type}] ${summaryOf(event)}`, channel: destination.channel }),
      };
    case 'monitor': {
      const base = endpoints.monitorSites[destination.site];
      if (base === undefined) throw new UndeliverableError(`unknown monitoring site ${destination.site}`);
      const alert = definitionOf(event.type).purpose === 'alerts';
      return {
        url: monitorEventsUrl(base),
        headers: { ...JSON_HEADERS, [MONITOR_API_KEY_HEADER]: required(credentials, 'api_key') },
        body: JSON.stringify({
          title: `cloudplane ${event.type}`,
          text: summaryOf(event),
          tags: [...stringTags(configuration), `event_type:${event.type}`, `subject:${event.subject}`],
          alert_type: alert ? 'error' : 'info',
          aggregation_key: event.subject,
          source_type_name: 'cloudplane',
        }),
      };
    }
    case 'pager': {
      const routing = { routing_key: required(credentials, 'integration_key'), dedup_key: event.subject };
      const message =
        destination.action === 'resolve'
          ? { ...routing, event_action: 'resolve' }
          : {
              ...routing,
              event_action: 'trigger',
              payload: {
                summary: summaryOf(event),
                source: 'cloudplane',
                severity: 'error',
                custom_details: { event_type: event.type, ...event.payload },
              },
            };
      return {
        url: pagerEnqueueUrl(endpoints.pagerUrl),
        headers: JSON_HEADERS,
        body: JSON.stringify(message),
      };
    }
  }
}
