import {
  STREAMING_CLUSTER,
  STREAMING_TOPIC,
  type StreamingCluster,
  type StreamingTopic,
} from '../../crds/streaming.js';
import { isStoreError } from '../../control-plane/types.js';
import { WorkloadError, type StreamingTopicSpec } from '../../workloads/runtime.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer } from '../runtime/finalizers.js';
import {
  acceptsChildren,
  adoptedByCluster,
  childrenOf,
  childrenWatch,
  mirroredFromKafka,
} from './children.js';
import {
  streamingRun,
  removeChild,
  statusWriter,
  WAIT_FOR_CLUSTER_MS,
  type StreamingRun,
} from './streaming-run.js';
import {
  clusterNotFound,
  partitionsBefore,
  topicSpecProblem,
  topicStatus,
  waitingForCluster,
} from './engine.js';
import { clusterWorkload, topicWorkloadSpec } from './workload-of.js';

/** Writes the topic's status from what came of this look. */
const writeTopicStatus = statusWriter<StreamingTopic, Parameters<typeof topicStatus>[1]>(
  STREAMING_TOPIC,
  topicStatus,
);

/** Drops the topic from its brokers and lets it go. */
function removeTopic(topic: StreamingTopic, run: StreamingRun): Promise<void> {
  const name = topic.spec!.name;
  return removeChild(STREAMING_TOPIC, topic, run, async (cluster) => {
    await run.options.runtime.streaming.removeTopic(clusterWorkload(cluster), name);
    run.context.logger.info({ topic: name }, 'topic removed from the brokers');
  });
}

/**
 * Refuses a spec out of its cluster's limits for good (a TerminalError) and answers what the
 * brokers are asked for. The limits of a topic mirrored from the brokers were theirs to enforce.
 */
function checkedSpec(
  topic: StreamingTopic,
  cluster: StreamingCluster,
  run: StreamingRun,
): StreamingTopicSpec {
  const spec = topic.spec!;
  const siblings = childrenOf(
    run.context.cache.list<StreamingTopic>(STREAMING_TOPIC, run.namespace),
    spec.cluster,
  );
  const problem = topicSpecProblem(spec, {
    tier: cluster.spec!.tier,
    usedPartitions: partitionsBefore(topic, siblings),
    currentPartitions: topic.status?.partitions,
    withinTier: !mirroredFromKafka(topic),
  });
  const workloadSpec = topicWorkloadSpec(topic);
  if (problem || !workloadSpec) {
    const message = problem ? `spec.${problem.field}: ${problem.message}` : 'spec.retention does not parse';
    throw new TerminalError('InvalidSpec', message, 'error');
  }
  return workloadSpec;
}

/**
 * A topic a Kafka client made and then deleted: its object goes too, rather than the topic
 * coming back (the cluster's mirror may not have run yet). True when it went.
 */
async function deletedOverKafka(
  topic: StreamingTopic,
  cluster: StreamingCluster,
  run: StreamingRun,
): Promise<boolean> {
  if (!mirroredFromKafka(topic) || topic.status?.phase !== 'ready') return false;
  const held = await run.options.runtime.streaming.listTopics(clusterWorkload(cluster));
  if (held.some((entry) => entry.name === topic.spec!.name)) return false;
  try {
    await run.context.store.delete(STREAMING_TOPIC, run.namespace, topic.metadata.name);
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
  }
  run.context.logger.info(
    { topic: topic.spec!.name },
    'topic deleted over the Kafka protocol; its object goes too',
  );
  return true;
}

/** Brings the topic on the brokers to the spec and writes what they have, or why they refused. */
async function ensureOnBrokers(
  topic: StreamingTopic,
  cluster: StreamingCluster,
  workloadSpec: StreamingTopicSpec,
  run: StreamingRun,
): Promise<void> {
  try {
    const observation = await run.options.runtime.streaming.ensureTopic(
      clusterWorkload(cluster),
      workloadSpec,
    );
    await writeTopicStatus(topic, { phase: 'ready', observation }, run);
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    run.context.logger.warn({ reason: error.reason, err: error.message }, 'the brokers refused the topic');
    await writeTopicStatus(topic, { phase: 'error', reason: error.reason, message: error.message }, run);
  }
}

/**
 * Reconciles StreamingTopics: brings the topic on the brokers to the spec within its cluster's
 * limits (partitions only grow), and removes it when the object is deleted. A topic mirrored
 * from the brokers is taken as the brokers have it: its limits were the brokers' to enforce.
 */
export function streamingTopicController(options: StreamingRun['options']): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let topic = context.cache.get<StreamingTopic>(STREAMING_TOPIC, namespace, name);
    if (!topic?.spec) return;
    const run = streamingRun(topic, namespace, context, options);
    if (topic.metadata.deletionTimestamp) return removeTopic(topic, run);
    const cluster = context.cache.get<StreamingCluster>(STREAMING_CLUSTER, namespace, topic.spec.cluster);
    if (!cluster?.spec) return writeTopicStatus(topic, clusterNotFound(topic.spec.cluster), run);
    topic = await adoptedByCluster(context.store, STREAMING_TOPIC, topic, cluster);
    const workloadSpec = checkedSpec(topic, cluster, run);
    topic = await addFinalizer(context.store, STREAMING_TOPIC, topic);
    if (!acceptsChildren(cluster)) {
      await writeTopicStatus(topic, waitingForCluster(topic.spec!.cluster), run);
      return { requeueAfterMs: WAIT_FOR_CLUSTER_MS };
    }
    if (await deletedOverKafka(topic, cluster, run)) return;
    return ensureOnBrokers(topic, cluster, workloadSpec, run);
  };

  return {
    name: 'streamingtopic',
    for: STREAMING_TOPIC,
    // A cluster becoming running wakes the topics waiting for it.
    watches: [childrenWatch(STREAMING_TOPIC)],
    reconcile,
  };
}
