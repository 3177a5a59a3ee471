/**
 * `streaming_consumer_group_lag{cluster, group, topic, partition}`: how far each consumer group is
 * behind, per partition. The brokers are asked when Prometheus scrapes, so nothing polls between
 * scrapes; scrapes within five seconds of a reading share it, so a scrape storm (`/metrics` is not
 * rate-limited) costs the brokers one round of queries per five seconds.
 */
import { Gauge, type Registry } from 'prom-client';
import { clusterWorkload } from '../../../controllers/streaming/index.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import { STREAMING_CLUSTER, type StreamingCluster } from '../../../crds/streaming.js';
import type { Logger } from '../../../observability/logger.js';
import { SharedRound } from '../../../observability/shared-round.js';
import type { StreamingRuntime } from '../../../workloads/runtime.js';
import { restIdOf } from '../../../crds/ids.js';

const LAG_METRIC = 'streaming_consumer_group_lag';
const READINGS_REUSED_FOR_MS = 5000;

interface LagReading {
  labels: { cluster: string; group: string; topic: string; partition: string };
  lag: number;
}

/** Registers the gauge on `registry`; once per registry. */
export function registerConsumerGroupLagGauge(
  registry: Registry,
  source: { store: ObjectStore; runtime: StreamingRuntime | undefined; logger: Logger },
): void {
  if (registry.getSingleMetric(LAG_METRIC)) return;
  const { store, runtime, logger } = source;
  const readings = new SharedRound(async (): Promise<LagReading[]> => {
    if (!runtime) return [];
    const found: LagReading[] = [];
    const { items } = await store.list<StreamingCluster>(STREAMING_CLUSTER);
    const running = items.filter(
      (cluster) => cluster.spec && cluster.status?.phase === 'running' && !cluster.metadata.deletionTimestamp,
    );
    for (const cluster of running) {
      const workload = clusterWorkload(cluster);
      const clusterId = restIdOf(cluster.metadata.name);
      try {
        for (const group of await runtime.listGroups(workload)) {
          const lag = await runtime.groupLag(workload, group.groupId);
          for (const partition of lag?.partitions ?? []) {
            const labels = {
              cluster: clusterId,
              group: group.groupId,
              topic: partition.topic,
              partition: String(partition.partition),
            };
            found.push({ labels, lag: partition.lag });
          }
        }
      } catch (error) {
        // One cluster's brokers not answering must not fail the whole scrape.
        logger.warn({ err: error, cluster: clusterId }, 'consumer group lag not read');
      }
    }
    return found;
  }, READINGS_REUSED_FOR_MS);
  new Gauge({
    name: LAG_METRIC,
    help: 'Records a consumer group has yet to read, per topic partition of a running streaming cluster',
    labelNames: ['cluster', 'group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { labels, lag } of await readings.result()) this.set(labels, lag);
    },
  });
}
