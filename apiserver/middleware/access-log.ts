import type { RequestHandler } from 'express';
import { httpAccessLog } from '../../observability/http-access-log.js';
import type { Logger } from '../../observability/logger.js';
import { requestState } from '../routing/request-state.js';

/** The facade's access log: routes by their template, operational routes (probes, scrapes) at debug. */
export function accessLog(logger: Logger): RequestHandler {
  return httpAccessLog(logger, {
    routeOf: (req) => requestState(req).template ?? 'unmatched',
    isQuiet: (req) => requestState(req).route?.operational === true,
  });
}
