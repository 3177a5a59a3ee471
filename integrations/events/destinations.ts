/**
 * Where an integration's events go, decided from its type and configuration alone (no I/O), so
 * the publisher and the delivery worker agree.
 */
import type { IntegrationSpec, IntegrationType } from '../../crds/integration.js';
import { PROVIDERS } from '../providers/index.js';
import { definitionOf, filterSelects, type PlatformEventType } from './catalogue.js';

export type Destination =
  /** Any type with `configuration.event_webhook_url`: the signed event as JSON. */
  | { kind: 'webhook'; url: string }
  /** Where the provider's own forwarding puts it: a chat channel, a monitoring site, a pager action. */
  | { kind: 'provider'; type: IntegrationType; target: string };

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/**
 * The entries of `configuration.events` that name platform events (`vpc.created`, `stack.*`, `*`).
 * A code host's `events` are its inbound subscriptions (`push`, …): they have no dot and do not
 * filter outbound events.
 */
function eventFilter(configuration: Record<string, unknown>): string[] | undefined {
  const patterns = stringList(configuration.events).filter((entry) => entry === '*' || entry.includes('.'));
  return patterns.length > 0 ? patterns : undefined;
}

/** The destination of `type` for this integration, or undefined when it does not want the event. */
export function destinationOf(spec: IntegrationSpec, type: PlatformEventType): Destination | undefined {
  if (spec.enabled === false) return undefined;
  const configuration = spec.configuration ?? {};
  const filter = eventFilter(configuration);
  if (filter && !filter.some((entry) => filterSelects(entry, type))) return undefined;
  const definition = definitionOf(type);
  if (typeof configuration.event_webhook_url === 'string') {
    return { kind: 'webhook', url: configuration.event_webhook_url };
  }
  const target = PROVIDERS[spec.type].events?.target(configuration, definition);
  return target === undefined ? undefined : { kind: 'provider', type: spec.type, target };
}
