/**
 * What forwarding an event to a provider is made of, whatever the provider: the event, the request
 * that carries it, where the providers answer, and the failure retrying cannot mend. Each provider
 * module (integrations/providers) says where its events go and writes its own request.
 */
import type { IntegrationCredentials } from '../credentials.js';
import { definitionOf, type PlatformEventType } from './catalogue.js';

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

/** A credential delivery needs; its absence is undeliverable. */
export function requiredForDelivery(credentials: IntegrationCredentials | undefined, name: string): string {
  const value = credentials?.[name];
  if (!value) throw new UndeliverableError(`the integration has no ${name} to deliver events with`);
  return value;
}

/** `<what the event is>: <subject>`, the line every provider shows. */
export function summaryOf(event: EventToSend): string {
  return `${definitionOf(event.type).description}: ${event.subject}`;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };
