import { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';
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
}

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

/**
 * One line per request (id, method, path, route, status, duration) and `req.log`, a child logger
 * carrying the request id for everything logged while serving it.
 */
export function httpAccessLog(logger: Logger, options: AccessLogOptions): RequestHandler {
  const { routeOf, isQuiet = () => false } = options;
  return (req, res, next) => {
    const started = performance.now();
    const id = requestIdFor(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    (req as LoggedRequest)[BASE_LOGGER] = logger;
    const finish = (aborted: boolean) => {
      res.removeListener('close', onClose);
      res.removeListener('finish', onFinish);
      const failed = aborted || res.err !== undefined || res.statusCode >= 500;
      const level = failed ? 'error' : isQuiet(req) ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const route = routeOf(req);
      const fields = {
        req: requestFields(req),
        res: { statusCode: res.statusCode },
        ...(res.err ? { err: res.err } : {}),
        responseTime: Math.round(performance.now() - started),
        route,
      };
      const message = aborted
        ? `${req.method} ${route} aborted`
        : `${req.method} ${route} ${res.statusCode}${failed ? ' failed' : ''}`;
      logger[level](fields, message);
    };
    const onFinish = () => finish(false);
    const onClose = () => finish(true);
    res.once('finish', onFinish);
    res.once('close', onClose);
    next();
  };
}
