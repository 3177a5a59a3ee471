import { randomBytes, randomUUID } from 'node:crypto';

/** A new integration id: a uuid, which is also its object name. */
export function newIntegrationId(): string {
  return randomUUID();
}

function prefixed(prefix: string): string {
  return `${prefix}-${randomBytes(8).toString('hex')}`;
}

export const newTestId = (): string => prefixed('test');
export const newSyncId = (): string => prefixed('sync');

/** The id of a codehost integration's inbound webhook: one per integration, derived from it. */
export function codehostWebhookId(integrationId: string): string {
  return `webhook-${integrationId.replace(/-/g, '').slice(0, 16)}`;
}
