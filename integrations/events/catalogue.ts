/**
 * The platform events integrations can receive, `<subject>.<verb>`. The purpose routes an event to
 * a chat channel; the pager action says whether it opens or closes an incident.
 */

/** Which chat channel an event belongs in (the keys of a chat integration's `channels`). */
export type EventPurpose = 'deployments' | 'alerts' | 'logs';

/** What a paging service does with the event; absent: the pager does not receive it. */
export type PagerAction = 'trigger' | 'resolve';

export interface EventDefinition {
  purpose: EventPurpose;
  pager?: PagerAction;
  description: string;
}

export const EVENT_CATALOGUE = {
  'vault_cluster.created': { purpose: 'deployments', description: 'A vault cluster was created' },
  'vault_cluster.deleted': { purpose: 'deployments', description: 'A vault cluster was deleted' },
  'vault_cluster.sealed': { purpose: 'alerts', pager: 'trigger', description: 'A vault cluster was sealed' },
  'vault_cluster.unsealed': {
    purpose: 'alerts',
    pager: 'resolve',
    description: 'A vault cluster was unsealed',
  },
  'vpc.created': { purpose: 'deployments', description: 'A VPC was created' },
  'vpc.updated': { purpose: 'logs', description: 'A VPC was changed' },
  'vpc.deleted': { purpose: 'deployments', description: 'A VPC was deleted' },
  'vpc.available': { purpose: 'deployments', description: 'A VPC finished provisioning' },
  'stack.created': { purpose: 'deployments', description: 'A stack was created' },
  'stack.updated': { purpose: 'logs', description: 'A stack was changed' },
  'stack.deleted': { purpose: 'deployments', description: 'A stack was deleted' },
  'stack.applied': { purpose: 'deployments', pager: 'resolve', description: 'A stack deployment succeeded' },
  'stack.failed': { purpose: 'alerts', pager: 'trigger', description: 'A stack deployment failed' },
  'stack.destroyed': { purpose: 'deployments', description: "A stack's resources were destroyed" },
  'integration.created': { purpose: 'logs', description: 'An integration was created' },
  'integration.updated': { purpose: 'logs', description: 'An integration was changed' },
  'integration.deleted': { purpose: 'logs', description: 'An integration was deleted' },
  'integration.connected': {
    purpose: 'logs',
    pager: 'resolve',
    description: 'An integration reached its provider again',
  },
  'integration.error': {
    purpose: 'alerts',
    pager: 'trigger',
    description: 'An integration failed to reach its provider',
  },
  'database.created': { purpose: 'deployments', description: 'A database was created' },
  'database.updated': { purpose: 'logs', description: 'A database was grown or its credentials rotated' },
  'database.deleted': { purpose: 'deployments', description: 'A database was deleted' },
  'database.available': {
    purpose: 'deployments',
    pager: 'resolve',
    description: 'A database is running and reachable',
  },
  'database.degraded': {
    purpose: 'alerts',
    pager: 'trigger',
    description: 'A database that ran is not reachable now',
  },
  'database.error': { purpose: 'alerts', description: 'A database could not be made (the server refused)' },
  'nfs_share.created': { purpose: 'deployments', description: 'An NFS share was created' },
  'nfs_share.deleted': { purpose: 'deployments', description: 'An NFS share was deleted' },
  'nfs_share.available': { purpose: 'deployments', description: 'An NFS share is ready to mount' },
  'backup.created': { purpose: 'logs', description: 'A backup was asked for (or its schedule made one)' },
  'backup.deleted': { purpose: 'logs', description: 'A backup was deleted, or expired' },
  'backup.completed': { purpose: 'logs', description: 'A backup completed' },
  'backup.failed': { purpose: 'alerts', description: 'A backup failed' },
  'streaming_cluster.created': {
    purpose: 'deployments',
    description: 'An event-streaming cluster was created',
  },
  'streaming_cluster.deleted': {
    purpose: 'deployments',
    description: 'An event-streaming cluster was deleted',
  },
  'streaming_cluster.running': {
    purpose: 'deployments',
    pager: 'resolve',
    description: "An event-streaming cluster's brokers are running and reachable",
  },
  'streaming_cluster.degraded': {
    purpose: 'alerts',
    pager: 'trigger',
    description: 'An event-streaming cluster that ran is not reachable now',
  },
  'streaming_cluster.error': {
    purpose: 'alerts',
    description: 'An event-streaming cluster could not be made (the runtime refused or cannot run it)',
  },
  'streaming_user.password_revealed': {
    purpose: 'logs',
    description: "An event-streaming user's password was revealed through the API",
  },
  'organization.member_added': { purpose: 'logs', description: 'Someone joined the organization' },
  'organization.member_removed': {
    purpose: 'logs',
    description: 'A member was removed from the organization, or left it',
  },
  'organization.deleted': {
    purpose: 'alerts',
    description: 'An owner asked for the organization to be deleted; its resources are being removed',
  },
  'resource.created': { purpose: 'logs', description: 'Any other resource was created' },
  'resource.updated': { purpose: 'logs', description: 'Any other resource was changed' },
  'resource.deleted': { purpose: 'logs', description: 'Any other resource was deleted' },
} as const satisfies Record<string, EventDefinition>;

export type PlatformEventType = keyof typeof EVENT_CATALOGUE;

export const PLATFORM_EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as PlatformEventType[];

export function isPlatformEventType(value: string): value is PlatformEventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}

export function definitionOf(type: PlatformEventType): EventDefinition {
  return EVENT_CATALOGUE[type];
}

/**
 * Whether an entry of an `events` filter selects the type: the type itself, `<subject>.*`, or `*`.
 */
export function filterSelects(entry: string, type: PlatformEventType): boolean {
  if (entry === '*' || entry === type) return true;
  return entry.endsWith('.*') && type.startsWith(entry.slice(0, -1));
}
