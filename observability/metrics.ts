import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { requestMetrics, type RequestDurations } from './request-metrics.js';

/**
 * Every metric the process exports, registered on one registry so that two instances (two test
 * apps in one process) never collide on prom-client's global default registry.
 */
export interface Metrics {
  registry: Registry;
  httpRequestsTotal: Counter<'method' | 'route' | 'status'>;
  httpRequestDuration: RequestDurations;
  databaseConnectionsActive: Gauge;
  databaseQueriesTotal: Counter;
  reconcileTotal: Counter<'kind' | 'result'>;
  reconcileDuration: Histogram<'kind'>;
  queueDepth: Gauge<'kind'>;
  jobRunsTotal: Counter<'job' | 'outcome'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const http = requestMetrics(registry);
  return {
    registry,
    httpRequestsTotal: http.total,
    httpRequestDuration: http.durations,
    databaseConnectionsActive: new Gauge({
      name: 'database_connections_active',
      help: 'Data-plane database connections currently checked out or open',
      registers: [registry],
    }),
    databaseQueriesTotal: new Counter({
      name: 'database_queries_total',
      help: 'Statements sent to the PostgreSQL data plane, transaction control included',
      registers: [registry],
    }),
    reconcileTotal: new Counter({
      name: 'controller_reconcile_total',
      help: 'Reconciles finished, by kind and result (success, requeue, error, terminal)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: 'controller_reconcile_duration_seconds',
      help: 'Time spent in one reconcile',
      labelNames: ['kind'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'controller_queue_depth',
      help: 'Keys waiting in the work queue (not counting the ones being reconciled)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    jobRunsTotal: new Counter({
      name: 'cloudplane_job_runs_total',
      help: 'Scheduled job runs finished, by job and outcome',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
  };
}
