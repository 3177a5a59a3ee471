import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../observability/logger.js';
import { requestState } from '../routing/request-state.js';
import { requestIdFor } from './request-id.js';

function routeOf(req: IncomingMessage): string {
  return requestState(req).template ?? 'unmatched';
}

/**
 * One line per request (id, method, path, route template, status, duration) and `req.log`, a
 * child logger carrying the request id for everything logged while serving it. Headers are not
 * logged at all and the query string is dropped: both can carry credentials (OAuth codes, keys).
 */
export function accessLog(logger: Logger): RequestHandler {
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
      return requestState(req).route?.operational ? 'debug' : 'info';
    },
    customSuccessMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode} failed`,
    customSuccessObject: (req, _res, fields: object) => ({ ...fields, route: routeOf(req) }),
    customErrorObject: (req, _res, _error, fields: object) => ({ ...fields, route: routeOf(req) }),
  });
}
