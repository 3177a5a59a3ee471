import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from './logger.js';
import { presetHeader } from './http-response.js';
import { requestIdFor } from './request-id.js';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id: the client's sane `X-Request-Id`, or a new uuid. */
    id: string;
    /** A child logger carrying the request (id, method, path) for everything logged while serving it. */
    log: Logger;
  }
  interface ServerResponse {
    /** The failure behind a 500, logged on the request's line. */
    err?: Error;
  }
}

export interface AccessLogOptions {
  /** What the request matched (a route template), for the message and the `route` field. */
  routeOf(req: IncomingMessage): string;
  /** Machine traffic (probes, scrapes) whose lines are logged at debug. */
  isQuiet?(req: IncomingMessage): boolean;
  /** Told of every answered request and how long it took, after its line. */
  onAnswered?(req: IncomingMessage, res: ServerResponse, seconds: number): void;
}

/** Sees a request arrive and writes its line once it is answered or abandoned. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse) => void;

/** What a request is in every line logged about it: never headers, never the query string (credentials). */
function requestFields(req: IncomingMessage) {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return { id: req.id, method: req.method, path: query === -1 ? url : url.slice(0, query) };
}

const BASE_LOGGER = Symbol("the access log's logger");
const REQUEST_LOGGER = Symbol("the request's child logger");

interface LoggedRequest extends IncomingMessage {
  [BASE_LOGGER]?: Logger;
  [REQUEST_LOGGER]?: Logger;
}

// `req.log` is made on first use: most requests log nothing but their line, and a pino child costs
// a serialisation of its bindings. A getter on the prototype, as defining one per request costs more.
Object.defineProperty(IncomingMessage.prototype, 'log', {
  configurable: true,
  get(this: LoggedRequest): Logger | undefined {
    const base = this[BASE_LOGGER];
    // Undefined off the access log's path: a router mounted bare falls back to a logger of its own.
    return base && (this[REQUEST_LOGGER] ??= base.child({ req: requestFields(this) }));
  },
});

const STARTED = Symbol('when the request arrived (performance.now)');

interface ObservedResponse extends ServerResponse {
  [STARTED]: number;
}

/**
 * One line per request (id, method, path, route, status, duration) and `req.log`, a child logger
 * carrying the request id for everything logged while serving it. One listener, on `close`, which
 * node emits once for every response, after `finish` when it was answered: the same function for
 * every request, reading the request off its response, as a closure (or `once`'s wrapper) made
 * per request costs an allocation each.
 */
export function httpAccessLog(logger: Logger, options: AccessLogOptions): RequestObserver {
  const { routeOf, isQuiet = () => false, onAnswered } = options;
  // A line without an error holds only the fields built here, none of which a credential is in:
  // it skips the redaction walk every line would otherwise pay. A failure's error goes through it.
  const plainLogger = logger.child({}, { redact: [] });
  const writeLine = (req: IncomingMessage, res: ObservedResponse): void => {
    const aborted = !res.writableFinished;
    const elapsedMs = performance.now() - res[STARTED];
    if (!aborted) onAnswered?.(req, res, elapsedMs / 1000);
    const failed = aborted || res.err !== undefined || res.statusCode >= 500;
    const level = failed ? 'error' : isQuiet(req) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const route = routeOf(req);
    const fields = {
      req: requestFields(req),
      res: { statusCode: res.statusCode },
      ...(res.err ? { err: res.err } : {}),
      responseTime: Math.round(elapsedMs),
      route,
    };
    const message = aborted
      ? `${req.method} ${route} aborted`
      : `${req.method} ${route} ${res.statusCode}${failed ? ' failed' : ''}`;
    (res.err ? logger : plainLogger)[level](fields, message);
  };
  function answered(this: ObservedResponse): void {
    writeLine(this.req, this);
  }
  return (req, res) => {
    (res as ObservedResponse)[STARTED] = performance.now();
    const id = requestIdFor(req);
    req.id = id;
    presetHeader(res, 'X-Request-Id', id);
    (req as LoggedRequest)[BASE_LOGGER] = logger;
    res.on('close', answered);
  };
}
