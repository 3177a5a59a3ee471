import { httpAccessLog, type RequestObserver } from '../../observability/http-access-log.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { requestState } from '../routing/request-state.js';
import { httpMetrics } from './http-metrics.js';

/**
 * The facade's access log and request metrics: routes by their template, operational routes
 * (probes, scrapes) logged at debug.
 */
export function accessLog(logger: Logger, metrics: Metrics): RequestObserver {
  return httpAccessLog(logger, {
    routeOf: (req) => requestState(req).template ?? 'unmatched',
    isQuiet: (req) => requestState(req).route?.operational === true,
    onAnswered: httpMetrics(metrics),
  });
}
