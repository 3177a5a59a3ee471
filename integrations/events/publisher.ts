/**
 * Turns one platform event into an entry of the platform event log (which the event stream
 * serves) and a pending event row for every integration of the organization that wants it.
 * Sending is the delivery worker's job: publishing never waits on a provider.
 */
import { organizationNamespace } from '../../accounts/organizations.js';
import { INTEGRATION, type Integration } from '../../crds/integration.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { LOCK_CLASSES, serializedTransaction } from '../../data-plane/serialized-transaction.js';
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

/** How long the event log keeps an event: a stream's `since` replays only what is still there. */
export const PLATFORM_EVENT_RETENTION_DAYS = 7;

const EVENT_LOG_LOCK = { lockClass: LOCK_CLASSES.eventLog, key: 'platform_events' };

/**
 * Appends the event to the platform event log. Numbers are given under one lock, so they grow in
 * commit order and a reader remembering the last it saw misses none. Pruning spares the newest
 * row, so numbering never starts again and a client's `since` stays meaningful.
 */
async function appendToEventLog(deps: PublishDependencies, event: PlatformEvent, time: Date): Promise<void> {
  const cutoff = new Date(time.getTime() - PLATFORM_EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  await serializedTransaction(deps.database, EVENT_LOG_LOCK, async (trx) => {
    const { last } = await trx
      .selectFrom('platform_events')
      .select((eb) => eb.fn.max('sequence').as('last'))
      .executeTakeFirstOrThrow();
    const sequence = Number(last ?? 0) + 1;
    await trx
      .insertInto('platform_events')
      .values({
        sequence,
        organization_id: event.organizationId,
        type: event.type,
        subject: event.subject,
        time: time.toISOString(),
        data: JSON.stringify(event.payload),
      })
      .execute();
    await trx
      .deleteFrom('platform_events')
      .where('time', '<', cutoff)
      .where('sequence', '<', sequence)
      .execute();
  });
}

/**
 * Logs the event, records it for each interested integration and answers the ids of the
 * integration rows written.
 */
export async function publishEvent(deps: PublishDependencies, event: PlatformEvent): Promise<string[]> {
  const now = deps.now();
  await appendToEventLog(deps, event, now);
  const { items } = await deps.store.list<Integration>(INTEGRATION, {
    namespace: organizationNamespace(event.organizationId),
  });
  const at = now.toISOString();
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
