import {
  STREAMING_CLUSTER,
  STREAMING_TOPIC,
  type StreamingCluster,
  type StreamingTopic,
} from '../../crds/streaming.js';
import { isStoreError } from '../../control-plane/types.js';
import { WorkloadError } from '../../workloads/runtime.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { acceptsChildren, adoptedByCluster, childrenOf, liveCluster, CREATED_BY_KAFKA } from './children.js';
import type { StreamingControllerOptions } from './cluster-controller.js';
import { REASONS, topicSpecProblem, topicStatus } from './engine.js';
import { clusterWorkload, topicWorkloadSpec } from './workload-of.js';
import { CREATED_BY_LABEL } from '../../crds/annotations.js';

const WAIT_FOR_CLUSTER_MS = 1_000;

function madeBefore(one: StreamingTopic, other: StreamingTopic): boolean {
  const [a, b] = [one.metadata.creationTimestamp ?? '', other.metadata.creationTimestamp ?? ''];
  return a < b || (a === b && one.metadata.name < other.metadata.name);
}

/**
 * Reconciles StreamingTopics: brings the topic on the brokers to the spec within its cluster's
 * limits (partitions only grow), and removes it when the object is deleted. A topic mirrored
 * from the brokers is taken as the brokers have it: its limits were the brokers' to enforce.
 */
export function streamingTopicController(options: StreamingControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, { store, cache, clock, logger }) => {
    let topic = cache.get<StreamingTopic>(STREAMING_TOPIC, namespace, name);
    if (!topic?.spec) return;
    const spec = topic.spec;
    const streaming = options.runtime.streaming;
    const cluster = cache.get<StreamingCluster>(STREAMING_CLUSTER, namespace, spec.cluster);
    const context = { generation: topic.metadata.generation, now: clock.now() };

    if (topic.metadata.deletionTimestamp) {
      if (!holdsFinalizer(topic)) return;
      // A cluster going or gone takes its topics with it: removeCluster drops their data.
      const owner = await liveCluster(store, namespace, spec.cluster);
      if (owner) {
        await streaming.removeTopic(clusterWorkload(owner), spec.name);
        logger.info({ topic: spec.name }, 'topic removed from the brokers');
      }
      await removeFinalizer(store, STREAMING_TOPIC, topic);
      return;
    }

    const workloadSpec = topicWorkloadSpec(topic);
    if (!cluster?.spec) {
      await writeStatusIfChanged(
        store,
        STREAMING_TOPIC,
        topic,
        topicStatus(
          topic.status,
          { phase: 'error', reason: 'ClusterNotFound', message: `cluster ${spec.cluster} does not exist` },
          context,
        ),
      );
      return;
    }
    const adopted = await adoptedByCluster(store, STREAMING_TOPIC, topic, cluster);
    // The budget goes to topics in the order they were made, so a later one over it never takes
    // an earlier one's partitions.
    const earlier = childrenOf(cache.list<StreamingTopic>(STREAMING_TOPIC, namespace), spec.cluster).filter(
      (other) => !other.metadata.deletionTimestamp && madeBefore(other, adopted),
    );
    const problem = topicSpecProblem(spec, {
      tier: cluster.spec.tier,
      usedPartitions: earlier.reduce((sum, other) => sum + other.spec!.partitions, 0),
      currentPartitions: adopted.status?.partitions,
      withinTier: adopted.metadata.labels?.[CREATED_BY_LABEL] !== CREATED_BY_KAFKA,
    });
    if (problem || !workloadSpec) {
      const message = problem ? `spec.${problem.field}: ${problem.message}` : 'spec.retention does not parse';
      throw new TerminalError('InvalidSpec', message, 'error');
    }

    topic = await addFinalizer(store, STREAMING_TOPIC, adopted);
    if (!acceptsChildren(cluster)) {
      await writeStatusIfChanged(
        store,
        STREAMING_TOPIC,
        topic,
        topicStatus(
          topic.status,
          {
            phase: 'pending',
            reason: REASONS.WaitingForCluster,
            message: `waiting for cluster ${spec.cluster} to be running`,
          },
          context,
        ),
      );
      return { requeueAfterMs: WAIT_FOR_CLUSTER_MS };
    }
    // A topic a Kafka client made and then deleted: its object goes too, rather than the topic
    // coming back (the cluster's mirror may not have run yet).
    if (topic.metadata.labels?.[CREATED_BY_LABEL] === CREATED_BY_KAFKA && topic.status?.phase === 'ready') {
      const held = await streaming.listTopics(clusterWorkload(cluster));
      if (!held.some((entry) => entry.name === spec.name)) {
        try {
          await store.delete(STREAMING_TOPIC, namespace, topic.metadata.name);
        } catch (error) {
          if (!isStoreError(error, 'NotFound')) throw error;
        }
        logger.info({ topic: spec.name }, 'topic deleted over the Kafka protocol; its object goes too');
        return undefined;
      }
    }
    try {
      const observation = await streaming.ensureTopic(clusterWorkload(cluster), workloadSpec);
      await writeStatusIfChanged(
        store,
        STREAMING_TOPIC,
        topic,
        topicStatus(topic.status, { phase: 'ready', observation }, context),
      );
    } catch (error) {
      if (!(error instanceof WorkloadError)) throw error;
      logger.warn({ reason: error.reason, err: error.message }, 'the brokers refused the topic');
      await writeStatusIfChanged(
        store,
        STREAMING_TOPIC,
        topic,
        topicStatus(topic.status, { phase: 'error', reason: error.reason, message: error.message }, context),
      );
    }
    return undefined;
  };

  return {
    name: 'streamingtopic',
    for: STREAMING_TOPIC,
    // A cluster becoming running wakes the topics waiting for it.
    watches: [
      {
        type: STREAMING_CLUSTER,
        map: (cluster, cache) =>
          childrenOf(
            cache.list<StreamingTopic>(STREAMING_TOPIC, cluster.metadata.namespace),
            cluster.metadata.name,
          ).map((topic) => ({ namespace: topic.metadata.namespace, name: topic.metadata.name })),
      },
    ],
    reconcile,
  };
}
