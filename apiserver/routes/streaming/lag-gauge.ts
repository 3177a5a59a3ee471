/**
 * `streaming_consumer_group_lag{cluster, group, topic, partition}`: how far each consumer group is
 * behind, per partition. The brokers are asked when Prometheus scrapes, so the gauge is never
 * staler than the scrape and nothing polls between scrapes.
 */
import { Gauge, type Registry } from 'prom-client';
import { clusterRestIdOf, clusterWorkload } from '../../../controllers/streaming/index.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import { STREAMING_CLUSTER, type StreamingCluster } from '../../../crds/streaming.js';
import type { Logger } from '../../../observability/logger.js';
import type { StreamingRuntime } from '../../../workloads/runtime.js';

const LAG_METRIC = 'streaming_consumer_group_lag';

/** Registers the gauge on `registry`; once per registry. */
export function registerConsumerGroupLagGauge(
  registry: Registry,
  source: { store: ObjectStore; runtime: StreamingRuntime | undefined; logger: Logger },
): void {
  if (registry.getSingleMetric(LAG_METRIC)) return;
  const { store, runtime, logger } = source;
  new Gauge({
    name: LAG_METRIC,
    help: 'Records a consumer group has yet to read, per topic partition of a running streaming cluster',
    labelNames: ['cluster', 'group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      if (!runtime) return;
      const { items } = await store.list<StreamingCluster>(STREAMING_CLUSTER);
      const running = items.filter(
        (cluster) =>
          cluster.spec && cluster.status?.phase === 'running' && !cluster.metadata.deletionTimestamp,
      );
      for (const cluster of running) {
        const workload = clusterWorkload(cluster);
        const clusterId = clusterRestIdOf(cluster.metadata.name);
        try {
          for (const group of await runtime.listGroups(workload)) {
            const lag = await runtime.groupLag(workload, group.groupId);
            for (const partition of lag?.partitions ?? []) {
              this.set(
                {
                  cluster: clusterId,
                  group: group.groupId,
                  topic: partition.topic,
                  partition: String(partition.partition),
                },
                partition.lag,
              );
            }
          }
        } catch (error) {
          // One cluster's brokers not answering must not fail the whole scrape.
          logger.warn({ err: error, cluster: clusterId }, 'consumer group lag not read');
        }
      }
    },
  });
}
