/**
 * The objects a cluster owns: its topics and users, named after the cluster and their Kafka name,
 * with the cluster as their controller, so they go when it goes.
 */
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import {
  isControlledBy,
  ownerReference,
  withControllerReference,
} from '../../control-plane/owner-references.js';
import {
  isStoreError,
  type ObjectStore,
  type OwnerReference,
  type ResourceType,
} from '../../control-plane/types.js';
import {
  STREAMING_CLUSTER,
  STREAMING_TOPIC,
  STREAMING_USER,
  type StreamingCluster,
  type StreamingTopic,
  type StreamingTopicSpec,
  type StreamingUser,
  type StreamingUserSpec,
} from '../../crds/streaming.js';
import type { WatchedKind } from '../runtime/controller.js';
import { childObjectName } from './ids.js';
import { CREATED_BY_LABEL } from '../../crds/annotations.js';

/** The `CREATED_BY_LABEL` of a StreamingTopic mirrored from a topic a Kafka client made. */
export const CREATED_BY_KAFKA = 'kafka';

/** Whether a topic mirrors one a Kafka client made: the brokers, not the tier, set its limits. */
export function mirroredFromKafka(topic: StreamingTopic): boolean {
  return topic.metadata.labels?.[CREATED_BY_LABEL] === CREATED_BY_KAFKA;
}

function clusterOwnerReference(cluster: StreamingCluster): OwnerReference {
  return ownerReference(cluster, { controller: true, blockOwnerDeletion: true });
}

/**
 * A topic or user applied with kubectl names its cluster in the spec only: the cluster becomes its
 * controlling owner, so it goes when the cluster goes, as one made through the API does.
 */
export async function adoptedByCluster<T extends StreamingTopic | StreamingUser>(
  store: ObjectStore,
  type: ResourceType,
  child: T,
  cluster: StreamingCluster,
): Promise<T> {
  if (isControlledBy(child, cluster)) return child;
  return store.update<T>(type, withControllerReference(child, cluster));
}

/** A StreamingTopic of `cluster`; `labels` say who made it when it was not the API or kubectl. */
export function topicObject(
  cluster: StreamingCluster,
  spec: Omit<StreamingTopicSpec, 'cluster'>,
  labels?: Record<string, string>,
): StreamingTopic {
  return {
    apiVersion: API_VERSION,
    kind: STREAMING_TOPIC.kind,
    metadata: {
      name: childObjectName(cluster.metadata.name, spec.name),
      namespace: cluster.metadata.namespace,
      ...(labels ? { labels } : {}),
      ownerReferences: [clusterOwnerReference(cluster)],
    },
    spec: { cluster: cluster.metadata.name, ...spec },
  };
}

export function userObject(
  cluster: StreamingCluster,
  spec: Omit<StreamingUserSpec, 'cluster'>,
): StreamingUser {
  return {
    apiVersion: API_VERSION,
    kind: STREAMING_USER.kind,
    metadata: {
      name: childObjectName(cluster.metadata.name, spec.name),
      namespace: cluster.metadata.namespace,
      ownerReferences: [clusterOwnerReference(cluster)],
    },
    spec: { cluster: cluster.metadata.name, ...spec },
  };
}

/**
 * Whether a cluster's brokers may be asked to hold a topic or user now: running and not being
 * deleted. Asking a removed cluster would start its brokers again.
 */
export function acceptsChildren(cluster: StreamingCluster | undefined): cluster is StreamingCluster {
  return Boolean(cluster?.spec && !cluster.metadata.deletionTimestamp && cluster.status?.phase === 'running');
}

/**
 * The cluster as the store has it now, when it exists and is not being deleted. A child being
 * deleted reads the store, not the cache: a cluster removed a moment ago must not be asked to
 * drop the child, which would start its brokers again.
 */
export async function liveCluster(
  store: ObjectStore,
  namespace: string,
  name: string,
): Promise<StreamingCluster | undefined> {
  try {
    const cluster = await store.get<StreamingCluster>(STREAMING_CLUSTER, namespace, name);
    return cluster.spec && !cluster.metadata.deletionTimestamp ? cluster : undefined;
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** The cluster's topics or users in `objects` (the cache's, or the store's). */
export function childrenOf<T extends StreamingTopic | StreamingUser>(
  objects: readonly T[],
  cluster: string,
): T[] {
  return objects.filter((object) => object.spec?.cluster === cluster);
}

/** Wakes a cluster's topics or users when the cluster changes: its brokers must hold them. */
export function childrenWatch(type: ResourceType): WatchedKind {
  return {
    type: STREAMING_CLUSTER,
    map: (cluster, cache) =>
      childrenOf(
        cache.list<StreamingTopic | StreamingUser>(type, cluster.metadata.namespace),
        cluster.metadata.name,
      ).map((child) => ({ namespace: child.metadata.namespace, name: child.metadata.name })),
  };
}
