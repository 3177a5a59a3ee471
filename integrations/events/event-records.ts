/**
 * The event and delivery-attempt rows. Claiming is one conditional update, so of two workers
 * racing for an event exactly one sees a row changed; completing checks the lease owner, so a
 * worker whose lease ran out cannot overwrite the outcome of the one that took over.
 */
import { sql } from 'kysely';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { IntegrationEventsTable, WebhookDeliveryAttemptsTable } from '../../data-plane/schema.js';
import { newAttemptId } from './event-ids.js';

export type EventRow = IntegrationEventsTable;

/** Events that may be claimed at `now`: due pending or failed ones, and sends whose lease ran out. */
export async function dueEventIds(database: DataPlane, now: Date, limit: number): Promise<string[]> {
  const at = now.toISOString();
  const rows = await database.kysely
    .selectFrom('integration_events')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['pending', 'failed']), eb('next_attempt_at', '<=', at)]),
        eb.and([eb('status', '=', 'sending'), eb('lease_expires_at', '<=', at)]),
      ]),
    )
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes the event for one attempt under a lease, counting the attempt now so an event that keeps
 * crashing its worker still runs out of attempts. Undefined when another worker took it first.
 */
export async function claimEvent(
  database: DataPlane,
  id: string,
  owner: string,
  now: Date,
  leaseMs: number,
): Promise<EventRow | undefined> {
  const at = now.toISOString();
  const result = await database.kysely
    .updateTable('integration_events')
    .set({
      status: 'sending',
      lease_owner: owner,
      lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(),
      attempts: sql<number>`attempts + 1`,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['pending', 'failed']), eb('next_attempt_at', '<=', at)]),
        eb.and([eb('status', '=', 'sending'), eb('lease_expires_at', '<=', at)]),
      ]),
    )
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return database.kysely
    .selectFrom('integration_events')
    .selectAll()
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
}

export type AttemptOutcome =
  | { status: 'success'; responseStatus: number; at: Date }
  | {
      status: 'failed' | 'dead';
      responseStatus: number | null;
      error: string;
      nextAttemptAt: Date;
    };

/** Writes the outcome of a claimed attempt; false when the lease had passed to another worker. */
export async function completeEvent(
  database: DataPlane,
  id: string,
  owner: string,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const common = { lease_owner: null, lease_expires_at: null };
  const changes =
    outcome.status === 'success'
      ? {
          ...common,
          status: 'success' as const,
          sent_at: outcome.at.toISOString(),
          response_status: outcome.responseStatus,
          last_error: null,
        }
      : {
          ...common,
          status: outcome.status,
          response_status: outcome.responseStatus,
          last_error: outcome.error,
          next_attempt_at: outcome.nextAttemptAt.toISOString(),
        };
  const result = await database.kysely
    .updateTable('integration_events')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Puts a dead or failed event back in the queue with a fresh set of attempts; false for any other state. */
export async function redeliverEvent(
  database: DataPlane,
  integrationId: string,
  eventId: string,
  now: Date,
): Promise<boolean> {
  const result = await database.kysely
    .updateTable('integration_events')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now.toISOString(), last_error: null })
    .where('id', '=', eventId)
    .where('integration_id', '=', integrationId)
    .where('status', 'in', ['dead', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findEvent(
  database: DataPlane,
  integrationId: string,
  eventId: string,
): Promise<EventRow | undefined> {
  return database.kysely
    .selectFrom('integration_events')
    .selectAll()
    .where('id', '=', eventId)
    .where('integration_id', '=', integrationId)
    .executeTakeFirst();
}

export type NewAttempt = Omit<WebhookDeliveryAttemptsTable, 'id'>;

/**
 * Records one delivery attempt. False when `delivery_id` was recorded before: the delivery is a
 * replay.
 */
export async function recordAttempt(database: DataPlane, attempt: NewAttempt): Promise<boolean> {
  const result = await database.kysely
    .insertInto('webhook_delivery_attempts')
    .values({ id: newAttemptId(), ...attempt })
    .onConflict((conflict) => conflict.column('delivery_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
