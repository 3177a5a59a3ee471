import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, requestMetrics } from '../../observability/request-metrics.js';

type Observation = [method: string, route: string, status: string, seconds: number];

/** The exposition of the observations as prom-client's own counter and histogram write it. */
async function promClientText(observations: readonly Observation[]): Promise<string> {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const counter = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames,
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request arrival to the last byte of the response',
    labelNames,
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    counter.labels({ method, route, status }).inc();
    histogram.labels({ method, route, status }).observe(seconds);
  }
  return registry.metrics();
}

async function requestMetricsText(observations: readonly Observation[]): Promise<string> {
  const registry = new Registry();
  const { durations } = requestMetrics(registry);
  for (const [method, route, status, seconds] of observations) {
    durations.series(method, route, status).observe(seconds);
  }
  return registry.metrics();
}

describe('request metrics', () => {
  const cases: { name: string; observations: Observation[] }[] = [
    { name: 'no request', observations: [] },
    { name: 'one request', observations: [['GET', '/health', '200', 0.0004]] },
    {
      name: 'bounds, the largest bucket and past it',
      observations: [
        ['GET', '/health', '200', 0.001],
        ['GET', '/health', '200', 0.0025],
        ['GET', '/health', '200', 5],
        ['GET', '/health', '200', 7.5],
      ],
    },
    {
      name: 'series of several routes, methods and statuses, interleaved',
      observations: [
        ['GET', '/api/v1/vpcs/:id', '200', 0.02],
        ['GET', 'unmatched', '404', 0.003],
        ['POST', '/api/v1/vpcs', '201', 0.3],
        ['GET', '/api/v1/vpcs/:id', '404', 0.004],
        ['GET', '/api/v1/vpcs/:id', '200', 0.06],
        ['DELETE', '/api/v1/vpcs/:id', '204', 1.2],
        ['GET', 'unmatched', '404', 0.0001],
      ],
    },
  ];

  for (const { name, observations } of cases) {
    it(`writes what prom-client's counter and histogram write: ${name}`, async () => {
      expect(await requestMetricsText(observations)).toBe(await promClientText(observations));
    });
  }

  it('counts only the requests since the last scrape into the counter', async () => {
    const registry = new Registry();
    const { durations } = requestMetrics(registry);
    durations.series('GET', '/health', '200').observe(0.001);
    await registry.metrics();
    durations.series('GET', '/health', '200').observe(0.001);
    expect(await registry.metrics()).toContain(
      'http_requests_total{method="GET",route="/health",status="200"} 2',
    );
  });

  it('starts over when the registry resets its metrics', async () => {
    const registry = new Registry();
    const { durations } = requestMetrics(registry);
    durations.series('GET', '/health', '200').observe(0.001);
    await registry.metrics();
    registry.resetMetrics();
    durations.series('GET', '/health', '200').observe(0.001);
    expect(await registry.metrics()).toBe(await promClientText([['GET', '/health', '200', 0.001]]));
  });
});
