import { randomUUID } from 'node:crypto';

export function newEventId(): string {
  return `event-${randomUUID()}`;
}

export function newAttemptId(): string {
  return `attempt-${randomUUID()}`;
}

/**
 * The webhook that carries an integration's outbound events. One per integration, so its id is
 * derived from the integration's and stays the same for its life.
 */
export function outboundWebhookId(integrationId: string): string {
  return `webhook-${integrationId}`;
}
