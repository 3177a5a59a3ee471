import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../../observability/metrics.js';
import { requestState } from '../routing/request-state.js';

type Series = {
  count: ReturnType<Metrics['httpRequestsTotal']['labels']>;
  duration: ReturnType<Metrics['httpRequestDuration']['labels']>;
};

/**
 * Counts and times an answered request. The route label is the route template, never the raw
 * path, so the number of series stays bounded; requests no route matched share `unmatched`. Each
 * series is looked up once: resolving labels to a series costs a sort and a join per call.
 */
export function httpMetrics(
  metrics: Metrics,
): (req: IncomingMessage, res: ServerResponse, seconds: number) => void {
  const series = new Map<string, Series>();
  const seriesOf = (method: string, route: string, status: string): Series => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status };
      found = {
        count: metrics.httpRequestsTotal.labels(labels),
        duration: metrics.httpRequestDuration.labels(labels),
      };
      series.set(key, found);
    }
    return found;
  };
  return (req, res, seconds) => {
    const { count, duration } = seriesOf(
      req.method ?? 'GET',
      requestState(req).template ?? 'unmatched',
      String(res.statusCode),
    );
    count.inc();
    duration.observe(seconds);
  };
}
