import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../../observability/metrics.js';
import { requestState } from '../routing/request-state.js';

/**
 * Counts and times an answered request. The route label is the route template, never the raw
 * path, so the number of series stays bounded; requests no route matched share `unmatched`.
 */
export function httpMetrics(
  metrics: Metrics,
): (req: IncomingMessage, res: ServerResponse, seconds: number) => void {
  const durations = metrics.httpRequestDuration;
  return (req, res, seconds) => {
    durations
      .series(req.method ?? 'GET', requestState(req).template ?? 'unmatched', String(res.statusCode))
      .observe(seconds);
  };
}
