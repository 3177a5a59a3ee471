/** The runtime's view of a cluster. */
import type { StreamingCluster } from '../../crds/streaming.js';
import type { StreamingClusterWorkload, StreamingTopicSpec } from '../../workloads/runtime.js';
import type { StreamingTopic } from '../../crds/streaming.js';
import { flushSettingOf, parseRetention, streamingLimits } from './engine.js';
import { workloadIdOf } from '../../crds/ids.js';

export function clusterWorkload(cluster: StreamingCluster): StreamingClusterWorkload {
  const namespace = cluster.metadata.namespace ?? '';
  const tier = cluster.spec!.tier;
  return {
    id: workloadIdOf('esc', namespace, cluster.metadata.name),
    organization: namespace,
    tier,
    limits: streamingLimits(tier),
  };
}

/** A topic's spec as the runtime takes it; undefined when its retention does not parse. */
export function topicWorkloadSpec(topic: StreamingTopic): StreamingTopicSpec | undefined {
  const spec = topic.spec!;
  const retentionMs = parseRetention(spec.retention);
  if (retentionMs === undefined) return undefined;
  return {
    name: spec.name,
    partitions: spec.partitions,
    replicas: spec.replicas,
    retentionMs,
    cleanupPolicy: spec.cleanupPolicy,
    ...(spec.flushMessages === undefined ? {} : { flushMessages: flushSettingOf(spec.flushMessages) }),
    ...(spec.flushMs === undefined ? {} : { flushMs: flushSettingOf(spec.flushMs) }),
  };
}
