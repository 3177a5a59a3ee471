/**
 * One poller of the platform event log per process, shared by every stream client of the
 * process. Any replica's feed sees every event whichever process published it, since all of them
 * read the same table; the publisher numbers events in commit order, so reading past the last
 * number seen misses none.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { PlatformEventsTable } from '../../data-plane/schema.js';
import type { Logger } from '../../observability/logger.js';

/** Rows read per query; a full page is followed at once by the next. */
const PAGE_SIZE = 500;

export type EventListener = (event: PlatformEventsTable) => void;

export interface EventFeed {
  /** The number of the last event handed to listeners. */
  latest(): number;
  /** Hands every later event to `listener`, in order, until the returned function is called. */
  listen(listener: EventListener): () => void;
  stop(): Promise<void>;
}

/** The events of one organization after `after` up to `upTo`, oldest first, at most `limit`. */
export async function readOrganizationEvents(
  database: DataPlane,
  range: { organizationId: string; after: number; upTo: number; limit: number },
): Promise<PlatformEventsTable[]> {
  return database.kysely
    .selectFrom('platform_events')
    .selectAll()
    .where('organization_id', '=', range.organizationId)
    .where('sequence', '>', range.after)
    .where('sequence', '<=', range.upTo)
    .orderBy('sequence')
    .limit(range.limit)
    .execute();
}

async function lastSequence(database: DataPlane): Promise<number> {
  const { last } = await database.kysely
    .selectFrom('platform_events')
    .select((eb) => eb.fn.max('sequence').as('last'))
    .executeTakeFirstOrThrow();
  return Number(last ?? 0);
}

/** Starts polling every `pollIntervalMs` from the newest event there is now. */
export async function startEventFeed(deps: {
  database: DataPlane;
  logger: Logger;
  pollIntervalMs: number;
}): Promise<EventFeed> {
  const { database, logger } = deps;
  const listeners = new Set<EventListener>();
  let cursor = await lastSequence(database);
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;

  const readNewEvents = async (): Promise<void> => {
    for (;;) {
      const rows = await database.kysely
        .selectFrom('platform_events')
        .selectAll()
        .where('sequence', '>', cursor)
        .orderBy('sequence')
        .limit(PAGE_SIZE)
        .execute();
      for (const row of rows) {
        cursor = row.sequence;
        for (const listener of listeners) listener(row);
      }
      if (rows.length < PAGE_SIZE || stopped) return;
    }
  };

  let polling: Promise<void> = Promise.resolve();
  const poll = (): void => {
    polling = readNewEvents()
      .then(() => {
        if (failing) logger.info('platform event log readable again');
        failing = false;
      })
      .catch((error: unknown) => {
        // Once per outage: the next poll retries.
        if (!failing) logger.error({ err: error }, 'cannot read the platform event log');
        failing = true;
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(poll, deps.pollIntervalMs);
      });
  };
  timer = setTimeout(poll, deps.pollIntervalMs);

  return {
    latest: () => cursor,
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling;
      listeners.clear();
    },
  };
}
