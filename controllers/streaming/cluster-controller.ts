import { isStoreError } from '../../control-plane/types.js';
import {
  STREAMING_CLUSTER,
  STREAMING_TOPIC,
  STREAMING_USER,
  type ConsumerGroupSummary,
  type StreamingCluster,
  type StreamingTopic,
  type StreamingUser,
  type StreamingUserAcl,
} from '../../crds/streaming.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import {
  WorkloadError,
  type GroupLag,
  type StreamingClusterObservation,
  type StreamingClusterWorkload,
  type StreamingRuntime,
} from '../../workloads/runtime.js';
import type { ControllerDefinition, ReconcileContext, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { markDeleting, writeStatusIfChanged } from '../runtime/status.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { countClusterSchemas, removeClusterSchemaRegistry } from '../../schema-registry/index.js';
import { removeClusterCredentials } from './credentials.js';
import {
  clusterErrorStatus,
  clusterEvents,
  clusterRequeueMs,
  clusterSpecProblem,
  clusterStatus,
  flushDiffers,
  formatRetention,
  mirroredFlush,
  GIGABYTE,
  parseRetention,
  groupSummaries,
} from './engine.js';
import { childrenOf, CREATED_BY_KAFKA, mirroredFromKafka, topicObject } from './children.js';
import { streamingRun, type StreamingControllerOptions, type StreamingRun } from './streaming-run.js';
import { clusterWorkload } from './workload-of.js';
import { restIdOf } from '../../crds/ids.js';
import { CREATED_BY_LABEL } from '../../crds/annotations.js';

/** What a cluster being deleted says it is doing. */
const REMOVING = 'stopping the brokers and removing their data';

/** Marks the cluster deleting, stops its brokers, drops their credentials and schemas, and lets it go. */
async function removeCluster(cluster: StreamingCluster, run: StreamingRun): Promise<void> {
  if (!holdsFinalizer(cluster)) return;
  const { context, options, namespace } = run;
  const name = cluster.metadata.name;
  const going = await markDeleting(context.store, STREAMING_CLUSTER, cluster, REMOVING);
  await options.runtime.streaming.removeCluster(clusterWorkload(going));
  await removeClusterCredentials(options.database, namespace, name);
  await removeClusterSchemaRegistry(options.database, restIdOf(name));
  await removeFinalizer(context.store, STREAMING_CLUSTER, going);
  context.logger.info('streaming cluster removed');
}

/** Starts (or adopts) the brokers; undefined when the runtime refused, its reason written into status. */
async function ensureBrokers(
  cluster: StreamingCluster,
  run: StreamingRun,
): Promise<StreamingClusterObservation | undefined> {
  try {
    return await run.options.runtime.streaming.ensureCluster(clusterWorkload(cluster));
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    run.context.logger.warn({ reason: error.reason, err: error.message }, 'the streaming runtime refused');
    await writeStatusIfChanged(
      run.context.store,
      STREAMING_CLUSTER,
      cluster,
      clusterErrorStatus(cluster.status, cluster.spec!.tier, error, run.status),
    );
    return undefined;
  }
}

/**
 * Mirrors what Kafka clients changed, writes what the brokers answered with the events it makes,
 * and records usage of running brokers.
 */
async function reportObserved(
  cluster: StreamingCluster,
  observation: StreamingClusterObservation,
  run: StreamingRun,
): ReturnType<Reconciler> {
  const { context, options } = run;
  const streaming = options.runtime.streaming;
  const workload = clusterWorkload(cluster);
  const running = observation.realization === 'real' && observation.state === 'ready';
  const groups = running ? await consumerGroupsOf(streaming, workload) : undefined;
  // Topics first: the status write wakes the topics' reconciles, which would otherwise bring
  // back a topic a client just deleted, or undo a config it just altered.
  if (running) {
    await mirrorKafkaTopics(context, cluster, streaming, workload);
    await mirrorKafkaAcls(context, cluster, streaming, workload);
  }
  const status = clusterStatus(cluster.status, cluster.spec!.tier, observation, run.status, groups);
  await writeStatusIfChanged(context.store, STREAMING_CLUSTER, cluster, status);
  for (const event of clusterEvents(cluster.status, status)) {
    if (event.type === 'Warning') context.events.warning(cluster, event.reason, event.message);
    else context.events.normal(cluster, event.reason, event.message);
  }
  if (running) await recordClusterUsage(options.database, cluster, observation, run.status.now);
  return { requeueAfterMs: clusterRequeueMs(observation, options.config.refreshIntervalMs) };
}

/**
 * Reconciles StreamingClusters: holds a finalizer until the brokers are gone and the users'
 * credentials with them; starts (or adopts) the brokers and reports phase, bootstrap servers,
 * CA and usage; mirrors topics made over the Kafka protocol into StreamingTopic objects; writes
 * hourly usage samples.
 */
export function streamingClusterController(options: StreamingControllerOptions): ControllerDefinition {
  const { runtime } = options;

  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let cluster = context.cache.get<StreamingCluster>(STREAMING_CLUSTER, namespace, name);
    if (!cluster?.spec) return;
    const run = streamingRun(cluster, namespace, context, options);
    if (cluster.metadata.deletionTimestamp) return removeCluster(cluster, run);
    const problem = clusterSpecProblem(cluster.spec, options.regions);
    if (problem) throw new TerminalError('InvalidSpec', `spec.${problem.field}: ${problem.message}`, 'error');
    cluster = await addFinalizer(context.store, STREAMING_CLUSTER, cluster);
    const observation = await ensureBrokers(cluster, run);
    if (!observation) return { requeueAfterMs: options.config.refreshIntervalMs };
    return reportObserved(cluster, observation, run);
  };

  return {
    name: 'streamingcluster',
    for: STREAMING_CLUSTER,
    owns: [STREAMING_TOPIC, STREAMING_USER],
    // A topic or ACL a Kafka client changed wakes its cluster at once to mirror it.
    sources: [
      (enqueue, cache) =>
        runtime.streaming.watchChanges?.((clusterId) => {
          for (const cluster of cache.list<StreamingCluster>(STREAMING_CLUSTER)) {
            if (cluster.spec && clusterWorkload(cluster).id === clusterId)
              enqueue({ namespace: cluster.metadata.namespace, name: cluster.metadata.name });
          }
        }) ?? (() => undefined),
    ],
    reconcile,
  };
}

/** The cluster's consumer groups with their lag, for its status. */
async function consumerGroupsOf(
  streaming: StreamingRuntime,
  workload: StreamingClusterWorkload,
): Promise<ConsumerGroupSummary[]> {
  const groups = await streaming.listGroups(workload);
  const lags = new Map<string, GroupLag>();
  for (const group of groups) {
    const lag = await streaming.groupLag(workload, group.groupId);
    if (lag) lags.set(group.groupId, lag);
  }
  return groupSummaries(groups, lags);
}

/** The hour's samples: the cluster itself and the storage it holds (priced by its tier), and its schemas. */
async function recordClusterUsage(
  dataPlane: DataPlane,
  cluster: StreamingCluster,
  observation: StreamingClusterObservation,
  now: Date,
): Promise<void> {
  const sample = {
    organization: cluster.metadata.namespace ?? '',
    resourceType: 'streaming_cluster',
    resourceId: restIdOf(cluster.metadata.name),
    resourceName: cluster.spec!.name,
    plan: cluster.spec!.tier,
  };
  await recordUsage(
    dataPlane,
    [
      { ...sample, meter: 'streaming.cluster_hours', unit: 'hour', quantity: 1 },
      {
        ...sample,
        meter: 'streaming.storage_gb_hours',
        unit: 'GB-hour',
        quantity: Math.round((observation.usage.storageBytes / GIGABYTE) * 1000) / 1000,
      },
      {
        ...sample,
        meter: 'streaming.registry_schema_hours',
        unit: 'schema-hour',
        quantity: await countClusterSchemas(dataPlane, sample.resourceId),
      },
    ],
    now,
  );
}

/**
 * Gives each user object, applied at its generation, the ACLs its user has on the brokers, so the
 * API and kubectl show ACLs a Kafka client created or deleted (and the user's reconcile keeps
 * them). An object with a change not yet applied keeps its own.
 */
async function mirrorKafkaAcls(
  { store, cache, logger }: ReconcileContext,
  cluster: StreamingCluster,
  streaming: StreamingRuntime,
  workload: StreamingClusterWorkload,
): Promise<void> {
  if (!streaming.listUserAcls) return;
  const held = new Map((await streaming.listUserAcls(workload)).map((user) => [user.name, user.acls]));
  const objects = childrenOf(
    cache.list<StreamingUser>(STREAMING_USER, cluster.metadata.namespace),
    cluster.metadata.name,
  );
  for (const object of objects) {
    const acls = held.get(object.spec!.name);
    const applied =
      object.status?.phase === 'ready' && object.status.observedGeneration === object.metadata.generation;
    if (!acls || !applied || object.metadata.deletionTimestamp) continue;
    if (aclsKey(acls) === aclsKey(object.spec!.acls)) continue;
    try {
      await store.update<StreamingUser>(STREAMING_USER, { ...object, spec: { ...object.spec!, acls } });
      logger.info(
        { user: object.spec!.name },
        'ACLs changed over the Kafka protocol; the user object follows',
      );
    } catch (error) {
      if (!isStoreError(error, 'Conflict')) throw error;
    }
  }
}

/** ACLs compared by what they grant, whatever order their fields were written in. */
function aclsKey(acls: readonly StreamingUserAcl[]): string {
  return JSON.stringify(
    acls.map((acl) => [acl.resourceType, acl.patternType, acl.name, acl.operations, acl.permission]),
  );
}

/** Kafka's own topics (`__consumer_offsets`, …) are not the user's. */
function isInternalTopic(name: string): boolean {
  return name.startsWith('__');
}

/**
 * Makes a StreamingTopic object for each topic a Kafka client made, and deletes the mirrored
 * objects whose topic a Kafka client deleted, so the API and kubectl show what the brokers hold.
 */
async function mirrorKafkaTopics(
  { store, cache, logger }: ReconcileContext,
  cluster: StreamingCluster,
  streaming: StreamingRuntime,
  workload: StreamingClusterWorkload,
): Promise<void> {
  const namespace = cluster.metadata.namespace!;
  const observed = (await streaming.listTopics(workload)).filter((topic) => !isInternalTopic(topic.name));
  const objects = childrenOf(cache.list<StreamingTopic>(STREAMING_TOPIC, namespace), cluster.metadata.name);
  const known = new Set(objects.map((topic) => topic.spec!.name));
  for (const topic of observed.filter((entry) => !known.has(entry.name))) {
    try {
      await store.create<StreamingTopic>(
        STREAMING_TOPIC,
        topicObject(
          cluster,
          {
            name: topic.name,
            partitions: topic.partitions,
            replicas: topic.replicas,
            retention: formatRetention(topic.retentionMs),
            cleanupPolicy: topic.cleanupPolicy,
            ...mirroredFlush(topic),
          },
          { [CREATED_BY_LABEL]: CREATED_BY_KAFKA },
        ),
      );
      logger.info({ topic: topic.name }, 'topic made over the Kafka protocol mirrored');
    } catch (error) {
      if (!isStoreError(error, 'AlreadyExists')) throw error;
    }
  }
  // A topic altered over the Kafka protocol (configs, partitions) while its object stood applied
  // at its generation: the object takes the broker's values, so the API shows them and the topic
  // controller does not undo them. An object with a change not yet applied keeps its own.
  const byName = new Map(observed.map((topic) => [topic.name, topic]));
  for (const object of objects) {
    const topic = byName.get(object.spec!.name);
    const applied =
      object.status?.phase === 'ready' && object.status.observedGeneration === object.metadata.generation;
    if (!topic || !applied || object.metadata.deletionTimestamp) continue;
    const spec = object.spec!;
    const changed =
      parseRetention(spec.retention) !== topic.retentionMs ||
      spec.cleanupPolicy !== topic.cleanupPolicy ||
      flushDiffers(spec, topic) ||
      spec.partitions < topic.partitions;
    if (!changed) continue;
    const { flushMessages: _messages, flushMs: _ms, ...kept } = spec;
    try {
      await store.update<StreamingTopic>(STREAMING_TOPIC, {
        ...object,
        spec: {
          ...kept,
          partitions: Math.max(spec.partitions, topic.partitions),
          retention: formatRetention(topic.retentionMs),
          cleanupPolicy: topic.cleanupPolicy,
          ...mirroredFlush(topic),
        },
      });
      logger.info({ topic: topic.name }, 'topic altered over the Kafka protocol; its object follows');
    } catch (error) {
      if (!isStoreError(error, 'Conflict')) throw error;
    }
  }
  const present = new Set(observed.map((topic) => topic.name));
  const vanished = objects.filter(
    (topic) =>
      mirroredFromKafka(topic) &&
      !topic.metadata.deletionTimestamp &&
      topic.status?.phase === 'ready' &&
      !present.has(topic.spec!.name),
  );
  for (const topic of vanished) {
    try {
      await store.delete(STREAMING_TOPIC, namespace, topic.metadata.name);
      logger.info({ topic: topic.spec!.name }, 'topic deleted over the Kafka protocol; its object goes too');
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
    }
  }
}
