/**
 * One stream client: waits for its subscription, replays what it asked for, then forwards its
 * organization's matching events as the feed reads them, with heartbeats between. A client that
 * does not keep up is closed rather than buffered for without bound.
 */
import { scopesRead } from './event-scopes.js';
import type WebSocket from 'ws';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { PlatformEventsTable } from '../../data-plane/schema.js';
import type { Logger } from '../../observability/logger.js';
import { toCloudEvent } from './cloud-event.js';
import { readOrganizationEvents, type EventFeed } from './event-feed.js';
import {
  parseSubscription,
  subscriptionSelects,
  SubscriptionError,
  type Subscription,
} from './subscription.js';

/** Close codes of RFC 6455 the stream uses. */
export const CLOSE_CODES = {
  goingAway: 1001,
  policyViolation: 1008,
  tryAgainLater: 1013,
} as const;

/** Events replayed per query. */
const REPLAY_PAGE_SIZE = 200;

export interface StreamLimits {
  heartbeatIntervalMs: number;
  /** How long a client may stay connected without subscribing. */
  subscribeTimeoutMs: number;
  /** Bytes queued for a client beyond which it is closed with 1013. */
  maxBufferedBytes: number;
  /** Live events held for a client while its replay runs, beyond which it is closed with 1013. */
  maxPendingEvents: number;
}

/** What of a WebSocket the stream uses, so a test can stand in a slow client. */
export type StreamSocket = Pick<WebSocket, 'send' | 'close' | 'on' | 'readyState' | 'bufferedAmount'>;

export interface StreamClientContext {
  database: DataPlane;
  feed: EventFeed;
  now: () => Date;
  logger: Logger;
  limits: StreamLimits;
}

const OPEN = 1;

export function serveStreamClient(
  socket: StreamSocket,
  caller: { organizationId: string; scopes: readonly string[] },
  context: StreamClientContext,
): void {
  const { organizationId } = caller;
  const { feed, limits, logger } = context;
  let subscribed = false;
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let stopListening = (): void => undefined;
  const subscribeDeadline = setTimeout(
    () => close(CLOSE_CODES.policyViolation, `subscribe within ${limits.subscribeTimeoutMs / 1000} s`),
    limits.subscribeTimeoutMs,
  );

  function close(code: number, reason: string): void {
    if (closed) return;
    closed = true;
    release();
    logger.debug({ code, reason }, 'event stream closed by the server');
    socket.close(code, reason);
  }

  function release(): void {
    clearTimeout(subscribeDeadline);
    clearInterval(heartbeat);
    stopListening();
  }

  /** Sends one message unless the client is too far behind, which closes it instead. */
  function send(message: unknown): boolean {
    if (closed || socket.readyState !== OPEN) return false;
    if (socket.bufferedAmount > limits.maxBufferedBytes) {
      close(CLOSE_CODES.tryAgainLater, 'the client reads too slowly; reconnect with since');
      return false;
    }
    socket.send(JSON.stringify(message));
    return true;
  }

  async function start(subscription: Subscription): Promise<void> {
    const selected = (event: PlatformEventsTable) =>
      event.organization_id === organizationId &&
      scopesRead(caller.scopes, event.type) &&
      subscriptionSelects(subscription, event.type);
    const replayUpTo = feed.latest();
    const after = Math.max(subscription.since ?? replayUpTo, replayUpTo);
    const pending: PlatformEventsTable[] = [];
    let replaying = subscription.since !== undefined;
    stopListening = feed.listen((event) => {
      if (!selected(event) || event.sequence <= after) return;
      if (!replaying) send(toCloudEvent(event));
      else if (pending.push(event) > limits.maxPendingEvents) {
        close(CLOSE_CODES.tryAgainLater, 'too many events arrived during the replay; reconnect with since');
      }
    });
    heartbeat = setInterval(
      () => send({ heartbeat: context.now().toISOString() }),
      limits.heartbeatIntervalMs,
    );
    if (subscription.since === undefined) return;
    let cursor = subscription.since;
    for (;;) {
      const page = await readOrganizationEvents(context.database, {
        organizationId,
        after: cursor,
        upTo: replayUpTo,
        limit: REPLAY_PAGE_SIZE,
      });
      for (const event of page) {
        if (selected(event) && !send(toCloudEvent(event))) return;
        cursor = event.sequence;
      }
      if (page.length < REPLAY_PAGE_SIZE) break;
    }
    replaying = false;
    for (const event of pending.splice(0)) if (!send(toCloudEvent(event))) return;
  }

  socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    // Only the first message means anything; later ones are ignored.
    if (subscribed || closed) return;
    subscribed = true;
    clearTimeout(subscribeDeadline);
    let subscription: Subscription;
    try {
      subscription = parseSubscription(isBinary ? '' : rawText(data));
    } catch (error) {
      if (!(error instanceof SubscriptionError)) throw error;
      close(CLOSE_CODES.policyViolation, error.message);
      return;
    }
    start(subscription).catch((error: unknown) => {
      logger.error({ err: error }, 'event stream replay failed');
      close(CLOSE_CODES.tryAgainLater, 'the events could not be read; reconnect with since');
    });
  });
  socket.on('close', () => {
    closed = true;
    release();
  });
  socket.on('error', (error: Error) => logger.debug({ err: error }, 'event stream socket failed'));
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}
