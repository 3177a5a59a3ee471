import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger.js';
import { requestIdFor } from './request-id.js';

export interface AccessLogOptions {
  /** What the request matched (a route template), for the message and the `route` field. */
  routeOf(req: IncomingMessage): string;
  /** Machine traffic (probes, scrapes) whose lines are logged at debug. */
  isQuiet?(req: IncomingMessage): boolean;
}

/**
 * One line per request (id, method, path, route, status, duration) and `req.log`, a child logger
 * carrying the request id for everything logged while serving it. Headers are not logged at all
 * and the query string is dropped: both can carry credentials (OAuth codes, keys).
 */
export function httpAccessLog(logger: Logger, options: AccessLogOptions): RequestHandler {
  const { routeOf, isQuiet = () => false } = options;
  return pinoHttp<IncomingMessage, ServerResponse>({
    logger,
    genReqId(req, res) {
      const id = requestIdFor(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?', 1)[0],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(req, res, error) {
      if (error || res.statusCode >= 500) return 'error';
      return isQuiet(req) ? 'debug' : 'info';
    },
    customSuccessMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode} failed`,
    customSuccessObject: (req, _res, fields: object) => ({ ...fields, route: routeOf(req) }),
    customErrorObject: (req, _res, _error, fields: object) => ({ ...fields, route: routeOf(req) }),
  });
}
