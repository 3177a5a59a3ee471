/**
 * Where an integration's events go, decided from its type and configuration alone (no I/O), so
 * the publisher and the delivery worker agree.
 */
import type { IntegrationSpec } from '../../crds/integration.js';
import { definitionOf, filterSelects, type PagerAction, type PlatformEventType } from './catalogue.js';

export type Destination =
  /** Any type with `configuration.event_webhook_url`: the signed event as JSON. */
  | { kind: 'webhook'; url: string }
  | { kind: 'chat'; channel: string }
  | { kind: 'monitor'; site: string }
  | { kind: 'pager'; action: PagerAction };

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
  switch (spec.type) {
    case 'chat': {
      const channels = configuration.channels as Record<string, unknown> | undefined;
      const channel = channels?.[definition.purpose];
      return typeof channel === 'string' ? { kind: 'chat', channel } : undefined;
    }
    case 'monitor':
      return typeof configuration.site === 'string'
        ? { kind: 'monitor', site: configuration.site }
        : undefined;
    case 'pager':
      return definition.pager ? { kind: 'pager', action: definition.pager } : undefined;
    case 'codehost':
    case 'edgenet':
      return undefined;
  }
}
