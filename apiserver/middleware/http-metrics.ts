import type { RequestHandler } from 'express';
import type { Metrics } from '../../observability/metrics.js';
import { requestState } from '../routing/request-state.js';

/**
 * Counts and times every answered request. The route label is the route template, never the raw
 * path, so the number of series stays bounded; requests no route matched share `unmatched`.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = {
        method: req.method,
        route: requestState(req).template ?? 'unmatched',
        status: String(res.statusCode),
      };
      metrics.httpRequestsTotal.inc(labels);
      metrics.httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
