import type { DataPlane } from '../data-plane/data-plane.js';

/**
 * What garbage collection may remove of the integrations' records once they are older than the
 * retention period: finished tests and syncs, events that are settled (delivered, or given up
 * and not redelivered), and delivery attempts. Events still in flight are never touched.
 */
const SETTLED_EVENTS = ['success', 'dead'] as const;

export async function countFinishedRunsBefore(database: DataPlane, cutoff: string): Promise<number> {
  const [tests, syncs] = await Promise.all([
    database.kysely
      .selectFrom('integration_tests')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('completed_at', '<', cutoff)
      .executeTakeFirst(),
    database.kysely
      .selectFrom('integration_syncs')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('completed_at', '<', cutoff)
      .executeTakeFirst(),
  ]);
  return Number(tests?.count ?? 0) + Number(syncs?.count ?? 0);
}

export async function purgeFinishedRunsBefore(database: DataPlane, cutoff: string): Promise<number> {
  return database.kysely.transaction().execute(async (trx) => {
    const tests = await trx
      .deleteFrom('integration_tests')
      .where('completed_at', '<', cutoff)
      .executeTakeFirst();
    const syncs = await trx
      .deleteFrom('integration_syncs')
      .where('completed_at', '<', cutoff)
      .executeTakeFirst();
    return Number(tests.numDeletedRows) + Number(syncs.numDeletedRows);
  });
}

export async function countSettledEventsBefore(database: DataPlane, cutoff: string): Promise<number> {
  const row = await database.kysely
    .selectFrom('integration_events')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('status', 'in', SETTLED_EVENTS)
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function purgeSettledEventsBefore(database: DataPlane, cutoff: string): Promise<number> {
  const result = await database.kysely
    .deleteFrom('integration_events')
    .where('status', 'in', SETTLED_EVENTS)
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countDeliveryAttemptsBefore(database: DataPlane, cutoff: string): Promise<number> {
  const row = await database.kysely
    .selectFrom('webhook_delivery_attempts')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('timestamp', '<', cutoff)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function purgeDeliveryAttemptsBefore(database: DataPlane, cutoff: string): Promise<number> {
  const result = await database.kysely
    .deleteFrom('webhook_delivery_attempts')
    .where('timestamp', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
