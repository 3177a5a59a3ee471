/**
 * Turns one platform event into a pending event row for every integration of the organization
 * that wants it. Sending is the delivery worker's job: publishing never waits on a provider.
 */
import { organizationNamespace } from '../../accounts/organizations.js';
import { INTEGRATION, type Integration } from '../../crds/integration.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { ObjectStore } from '../../control-plane/types.js';
import type { PlatformEventType } from './catalogue.js';
import { destinationOf } from './destinations.js';
import { newEventId } from './event-ids.js';

export interface PublishDependencies {
  database: DataPlane;
  store: ObjectStore;
  now: () => Date;
}

export interface PlatformEvent {
  organizationId: string;
  type: PlatformEventType;
  /** The id of the resource the event is about; the pager's dedup key. */
  subject: string;
  payload: Record<string, unknown>;
}

/** Records the event for each interested integration and answers the ids of the rows written. */
export async function publishEvent(deps: PublishDependencies, event: PlatformEvent): Promise<string[]> {
  const { items } = await deps.store.list<Integration>(INTEGRATION, {
    namespace: organizationNamespace(event.organizationId),
  });
  const at = deps.now().toISOString();
  const rows = items
    .filter((integration) => !integration.metadata.deletionTimestamp)
    .filter((integration) => integration.spec && destinationOf(integration.spec, event.type))
    .map((integration) => ({
      id: newEventId(),
      organization_id: event.organizationId,
      integration_id: integration.metadata.name,
      event_type: event.type,
      subject: event.subject,
      status: 'pending' as const,
      payload: JSON.stringify(event.payload),
      attempts: 0,
      next_attempt_at: at,
      created_at: at,
    }));
  if (rows.length > 0) await deps.database.kysely.insertInto('integration_events').values(rows).execute();
  return rows.map((row) => row.id);
}
