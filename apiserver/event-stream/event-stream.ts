/**
 * `GET /v1/events/stream`: the event bridge's WebSocket stream, attached to the node HTTP server
 * beside the REST app (express never sees an upgrade). The protocol is the specification's
 * "Event bridge" (extensions.md); README.md here says how it is served.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../../accounts/principal.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import { internalError, notFound, renderError, toApiError, type ApiError } from '../errors.js';
import { startEventFeed } from './event-feed.js';
import { CLOSE_CODES, serveStreamClient, type StreamLimits } from './stream-client.js';
import { authenticateUpgrade } from './upgrade-auth.js';

export const EVENT_STREAM_PATH = '/v1/events/stream';

/** The largest message a client may send; its one message is a short subscription. */
const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

/** How long clients get to answer the close handshake at shutdown before they are cut. */
const SHUTDOWN_GRACE_MS = 1_000;

export interface EventStreamOptions extends StreamLimits {
  /** How often the event log is read for new events. */
  pollIntervalMs: number;
}

export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = {
  pollIntervalMs: 250,
  heartbeatIntervalMs: 30_000,
  subscribeTimeoutMs: 30_000,
  maxBufferedBytes: 1024 * 1024,
  maxPendingEvents: 10_000,
};

export interface EventStreamDependencies {
  database: DataPlane;
  authenticator: Authenticator;
  logger: Logger;
  now: () => Date;
  options?: Partial<EventStreamOptions>;
}

export interface EventStream {
  /** Stops taking upgrades and closes every client (1001): call before closing the server. */
  close(): Promise<void>;
}

/** Answers a refused upgrade in HTTP, with the general error body, and drops the connection. */
function refuse(socket: Duplex, error: ApiError, requestId: string): void {
  const body = JSON.stringify(renderError(error, 'general', requestId));
  socket.end(
    [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** Serves the event stream on `server`'s upgrades; other upgrade paths answer 404. */
export async function attachEventStream(server: Server, deps: EventStreamDependencies): Promise<EventStream> {
  const options = { ...DEFAULT_EVENT_STREAM_OPTIONS, ...deps.options };
  const logger = deps.logger.child({ component: 'event-stream' });
  const feed = await startEventFeed({
    database: deps.database,
    logger,
    pollIntervalMs: options.pollIntervalMs,
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });

  /** The caller, or `undefined` once the upgrade has been refused in HTTP. */
  const admit = async (request: IncomingMessage, socket: Duplex, requestId: string) => {
    const url = new URL(request.url ?? '/', 'http://stream.invalid');
    try {
      if (url.pathname !== EVENT_STREAM_PATH) throw notFound(`nothing upgrades at ${url.pathname}`);
      return await authenticateUpgrade(request, url, deps);
    } catch (error) {
      const refusal = toApiError(error);
      if (!refusal) logger.error({ err: error, requestId }, 'event stream authentication failed');
      const answer = refusal ?? internalError();
      logger.info({ requestId, path: url.pathname, status: answer.status }, 'event stream upgrade refused');
      refuse(socket, answer, requestId);
      return undefined;
    }
  };

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const requestId = randomUUID();
    const caller = await admit(request, socket, requestId);
    if (!caller) return;
    sockets.handleUpgrade(request, socket, head, (client) => {
      const clientLogger = logger.child({ requestId, organizationId: caller.organizationId });
      clientLogger.debug({ principal: caller.principalKind }, 'event stream opened');
      serveStreamClient(client, caller, {
        database: deps.database,
        feed,
        now: deps.now,
        logger: clientLogger,
        limits: options,
      });
    });
  };
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // A client hanging up mid-authentication must not crash the process.
    socket.on('error', (error) => logger.debug({ err: error }, 'upgrading socket failed'));
    void upgrade(request, socket, head);
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      await feed.stop();
      const closed = new Promise<void>((resolve) => sockets.close(() => resolve()));
      for (const client of sockets.clients)
        client.close(CLOSE_CODES.goingAway, 'the server is shutting down');
      const cut = setTimeout(() => {
        for (const client of sockets.clients) client.terminate();
      }, SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(cut);
    },
  };
}
