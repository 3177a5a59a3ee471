import { Counter, Histogram, type Registry } from 'prom-client';

export type RequestLabel = 'method' | 'route' | 'status';

/** The buckets of `http_request_duration_seconds`, in seconds. */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** One method, route and status: how many requests, how long they took, per bucket. */
export class RequestSeries {
  count = 0;
  sum = 0;
  /** Requests per bucket (not cumulative); the last counts those past every bound. */
  readonly inBucket = new Array<number>(REQUEST_DURATION_BUCKETS.length + 1).fill(0);
  /** How much of `count` `http_requests_total` has taken up. */
  reported = 0;

  constructor(readonly labels: Readonly<Record<RequestLabel, string>>) {}

  observe(seconds: number): void {
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    this.inBucket[bucket]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

const DURATION_NAME = 'http_request_duration_seconds';
const DURATION_HELP = 'Time from request arrival to the last byte of the response';

/** A prom-client sample line, as its registry writes one. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

function sample(
  labels: Sample['labels'],
  sharedLabels: Sample['sharedLabels'],
  value: number,
  suffix: string,
  exemplar: Sample['exemplar'],
): Sample {
  return { labels, sharedLabels, value, metricName: `${DURATION_NAME}${suffix}`, exemplar };
}

/**
 * `http_request_duration_seconds`: a prom-client histogram whose series are `RequestSeries` the
 * caller finds once per label set and keeps. An observation is then a bucket search and three
 * additions, where prom-client's own works the labels out again on every call (a validation, a
 * hash string, a lookup by it), which cost more than the rest of a probe's accounting. Written out
 * sample for sample as prom-client writes a histogram; its series come only from `series`.
 */
export class RequestDurations extends Histogram<RequestLabel> {
  private kept = new Map<string, Map<string, Map<string, RequestSeries>>>();
  /** Every series, in the order they were made (prom-client's order). */
  private made: RequestSeries[] = [];

  constructor() {
    super({
      name: DURATION_NAME,
      help: DURATION_HELP,
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers: [],
    });
  }

  /** The series of a method, route and status, made on first use. */
  series(method: string, route: string, status: string): RequestSeries {
    let byMethod = this.kept.get(route);
    if (!byMethod) this.kept.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let found = byStatus.get(status);
    if (!found) {
      found = new RequestSeries({ method, route, status });
      byStatus.set(status, found);
      this.made.push(found);
    }
    return found;
  }

  /** Every series, in the order they were made. */
  allSeries(): readonly RequestSeries[] {
    return this.made;
  }

  override reset(): void {
    super.reset();
    this.kept = new Map();
    this.made = [];
  }

  /**
   * What prom-client's registry writes out (it asks a histogram this, and `get` splays it): per
   * series its cumulative buckets, +Inf, sum and count.
   */
  async getForPromString() {
    const values: Sample[] = [];
    for (const { labels, inBucket, sum, count } of this.allSeries()) {
      let cumulative = 0;
      REQUEST_DURATION_BUCKETS.forEach((bound, index) => {
        cumulative += inBucket[index]!;
        values.push(sample({ le: bound }, labels, cumulative, '_bucket', null));
      });
      values.push(
        sample({ le: '+Inf' }, labels, count, '_bucket', null),
        sample({}, labels, sum, '_sum', undefined),
        sample({}, labels, count, '_count', undefined),
      );
    }
    return { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, registered in that order; the counter
 * is read from the durations' series when scraped.
 */
export function requestMetrics(registry: Registry): {
  total: Counter<RequestLabel>;
  durations: RequestDurations;
} {
  const durations = new RequestDurations();
  const total = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      for (const series of durations.allSeries()) {
        if (series.count === series.reported) continue;
        this.inc(series.labels, series.count - series.reported);
        series.reported = series.count;
      }
    },
  });
  registry.registerMetric(durations);
  return { total, durations };
}
