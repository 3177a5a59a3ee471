/**
 * `/v1/streaming/clusters/:id/topics`: a cluster's topics, as StreamingTopic objects its topic
 * controller brings to the brokers. Topics a Kafka client made are listed too (mirrored).
 */
import {
  acceptsChildren,
  childrenOf,
  clusterWorkload,
  CREATED_BY_KAFKA,
  defaultReplicas,
  defaultRetention,
  FLUSH_DEFAULTS,
  topicObject,
  topicSpecProblem,
} from '../../../controllers/streaming/index.js';
import { isStoreError, type ObjectStore } from '../../../control-plane/types.js';
import {
  STREAMING_TOPIC,
  type StreamingCleanupPolicy,
  type StreamingCluster,
  type StreamingTopic,
} from '../../../crds/streaming.js';
import type { PartitionObservation } from '../../../workloads/runtime.js';
import { notFound } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { byCreation, PAGE_QUERY_PROPERTIES, pageOf, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  BASE,
  CLUSTER_PARAMS,
  findChild,
  findCluster,
  invalidField,
  nameInUse,
  notReadyMessage,
  READ,
  WRITE,
  type ClusterParams,
  type StreamingRouteServices,
} from './streaming-resources.js';
import { isDeleted, withoutDeleted } from '../../routing/deleted.js';
import { CREATED_BY_LABEL } from '../../../crds/annotations.js';

const CLEANUP_POLICIES: readonly StreamingCleanupPolicy[] = ['delete', 'compact'];

const TOPIC_PROPERTIES = {
  name: { type: 'string' },
  partitions: { type: 'integer' },
  replicas: { type: 'integer' },
  retention: { type: 'string', examples: ['7d', '12h', '-1'] },
  cleanup_policy: { type: 'string', enum: CLEANUP_POLICIES },
  flush_messages: {
    type: 'integer',
    description:
      "Kafka's flush.messages: 1, every append durable (fsynced) before it is answered; more, or -1 " +
      "(Kafka's default, no limit): answered once written to the operating system, fsynced every so many",
  },
  flush_ms: { type: 'integer', description: "Kafka's flush.ms: -1, no limit" },
  status: { type: 'string', enum: ['pending', 'ready', 'deleting', 'error'] },
  message: { type: ['string', 'null'] },
  created_by: { type: 'string', enum: ['api', 'kafka'], description: 'kafka: made by a Kafka client' },
  created_at: { type: 'string', format: 'date-time' },
} as const satisfies Record<string, JsonSchema>;

const TOPIC_BODY = { type: 'object', properties: TOPIC_PROPERTIES } as const satisfies JsonSchema;

const TOPIC_DETAIL = {
  type: 'object',
  properties: {
    ...TOPIC_PROPERTIES,
    partition_details: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          partition: { type: 'integer' },
          leader: { type: 'integer' },
          log_start_offset: { type: 'integer' },
          log_end_offset: { type: 'integer' },
          size_bytes: { type: 'integer' },
        },
      },
    },
  },
} as const satisfies JsonSchema;

const TOPIC_PARAMS = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    ...CLUSTER_PARAMS.properties,
    name: { type: 'string', minLength: 1, maxLength: 249 },
  },
} as const satisfies ObjectSchema;

interface TopicParams extends ClusterParams {
  name: string;
}

export function describeTopic(topic: StreamingTopic) {
  const spec = topic.spec!;
  return {
    name: spec.name,
    partitions: spec.partitions,
    replicas: spec.replicas,
    retention: spec.retention,
    cleanup_policy: spec.cleanupPolicy,
    flush_messages: spec.flushMessages ?? FLUSH_DEFAULTS.flushMessages,
    flush_ms: spec.flushMs ?? FLUSH_DEFAULTS.flushMs,
    status: topic.metadata.deletionTimestamp ? 'deleting' : (topic.status?.phase ?? 'pending'),
    message: notReadyMessage(topic.status),
    created_by: topic.metadata.labels?.[CREATED_BY_LABEL] === CREATED_BY_KAFKA ? 'kafka' : 'api',
    created_at: topic.status?.createdAt ?? topic.metadata.creationTimestamp ?? '',
  };
}

function describePartition(partition: PartitionObservation) {
  return {
    partition: partition.partition,
    leader: partition.leader,
    log_start_offset: partition.logStartOffset,
    log_end_offset: partition.logEndOffset,
    size_bytes: partition.sizeBytes,
  };
}

/** The cluster's topics, those being deleted too; the others count against its partitions. */
async function clusterTopics(store: ObjectStore, cluster: StreamingCluster): Promise<StreamingTopic[]> {
  const { items } = await store.list<StreamingTopic>(STREAMING_TOPIC, {
    namespace: cluster.metadata.namespace,
  });
  return childrenOf(items, cluster.metadata.name);
}

async function findTopic(
  store: ObjectStore,
  cluster: StreamingCluster,
  name: string,
): Promise<StreamingTopic> {
  const topic = await findChild<StreamingTopic>(store, STREAMING_TOPIC, cluster, name);
  if (!topic) throw notFound(`topic ${name} not found in streaming cluster ${cluster.spec!.name}`);
  return topic;
}

interface CreateBody {
  name: string;
  partitions?: number;
  replicas?: number;
  retention?: string;
  cleanup_policy?: StreamingCleanupPolicy;
  flush_messages?: number;
  flush_ms?: number;
}

interface PatchBody {
  partitions?: number;
  retention?: string;
  cleanup_policy?: StreamingCleanupPolicy;
  flush_messages?: number;
  flush_ms?: number;
}

const FLUSH_MESSAGES_SCHEMA = {
  type: 'integer',
  minimum: -1,
  'x-domain-rule': true,
  description:
    '1 (the default): each append durable before it is answered; more, or -1 (no limit): answered once ' +
    "written to the operating system (it survives the broker's process, not a power loss), as Kafka answers",
} as const satisfies JsonSchema;

const FLUSH_MS_SCHEMA = {
  type: 'integer',
  minimum: -1,
  description: 'How long an append not yet fsynced may wait, in ms; -1 (the default): no limit',
} as const satisfies JsonSchema;

/** The flush settings a create or a change gives, as the topic object keeps them. */
function flushFieldsOf(body: { flush_messages?: number; flush_ms?: number }) {
  return {
    ...(body.flush_messages === undefined ? {} : { flushMessages: body.flush_messages }),
    ...(body.flush_ms === undefined ? {} : { flushMs: body.flush_ms }),
  };
}

const RETENTION_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 16,
  description: '`7d`, `12h`, `30m`, or `-1` (forever, enterprise only)',
} as const satisfies JsonSchema;

async function listTopics({
  params,
  query,
  principal,
  store,
}: AuthenticatedContext<{ params: ClusterParams; query: PageQuery }>) {
  const cluster = await findCluster(store, principal, params.id);
  const { items } = await store.list<StreamingTopic>(STREAMING_TOPIC, {
    namespace: cluster.metadata.namespace,
  });
  const topics = withoutDeleted(childrenOf(items, cluster.metadata.name));
  return pageOf(topics.sort(byCreation).map(describeTopic), query);
}

async function createTopic({
  params,
  body,
  principal,
  store,
}: AuthenticatedContext<{ params: ClusterParams; body: CreateBody }>) {
  const cluster = await findCluster(store, principal, params.id);
  const tier = cluster.spec!.tier;
  const spec = {
    name: body.name,
    partitions: body.partitions ?? 1,
    replicas: body.replicas ?? defaultReplicas(tier),
    retention: body.retention ?? defaultRetention(tier),
    cleanupPolicy: body.cleanup_policy ?? 'delete',
    ...flushFieldsOf(body),
  };
  const topics = await clusterTopics(store, cluster);
  const namesake = topics.find((topic) => topic.spec!.name === spec.name);
  if (namesake) throw nameInUse('topic', spec.name, isDeleted(namesake));
  const others = withoutDeleted(topics);
  const problem = topicSpecProblem(spec, {
    tier,
    usedPartitions: others.reduce((sum, topic) => sum + topic.spec!.partitions, 0),
    withinTier: true,
  });
  if (problem) throw invalidField(problem);
  try {
    const created = await store.create<StreamingTopic>(STREAMING_TOPIC, topicObject(cluster, spec));
    return { status: 201, data: describeTopic(created) };
  } catch (error) {
    if (!isStoreError(error, 'AlreadyExists')) throw error;
    throw nameInUse('topic', spec.name, false);
  }
}

async function getTopic({
  params,
  principal,
  store,
  streamingRuntime,
}: AuthenticatedContext<{ params: TopicParams }, StreamingRouteServices>) {
  const cluster = await findCluster(store, principal, params.id);
  const topic = await findTopic(store, cluster, params.name);
  let partitions: PartitionObservation[] = [];
  if (streamingRuntime && acceptsChildren(cluster) && topic.status?.phase === 'ready') {
    const observed = await streamingRuntime.listTopics(clusterWorkload(cluster));
    partitions = observed.find((entry) => entry.name === params.name)?.partitionDetails ?? [];
  }
  return { data: { ...describeTopic(topic), partition_details: partitions.map(describePartition) } };
}

async function updateTopic({
  params,
  body,
  principal,
  store,
}: AuthenticatedContext<{ params: TopicParams; body: PatchBody }>) {
  const cluster = await findCluster(store, principal, params.id);
  const topic = await findTopic(store, cluster, params.name);
  const current = topic.spec!;
  const spec = {
    ...current,
    ...(body.partitions === undefined ? {} : { partitions: body.partitions }),
    ...(body.retention === undefined ? {} : { retention: body.retention }),
    ...(body.cleanup_policy === undefined ? {} : { cleanupPolicy: body.cleanup_policy }),
    ...flushFieldsOf(body),
  };
  const others = (await clusterTopics(store, cluster)).filter(
    (other) => other.spec!.name !== current.name && !other.metadata.deletionTimestamp,
  );
  const problem = topicSpecProblem(spec, {
    tier: cluster.spec!.tier,
    usedPartitions: others.reduce((sum, other) => sum + other.spec!.partitions, 0),
    currentPartitions: current.partitions,
    withinTier: true,
  });
  if (problem) throw invalidField(problem);
  const updated = await store.update<StreamingTopic>(STREAMING_TOPIC, { ...topic, spec });
  return { data: describeTopic(updated) };
}

async function deleteTopic({ params, principal, store }: AuthenticatedContext<{ params: TopicParams }>) {
  const cluster = await findCluster(store, principal, params.id);
  const topic = await findTopic(store, cluster, params.name);
  await store.delete(STREAMING_TOPIC, topic.metadata.namespace, topic.metadata.name);
  return {};
}

export const streamingTopicRoutes: RouteModule<StreamingRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ params: ClusterParams; query: PageQuery }>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/topics',
      scopes: READ,
      summary: "A cluster's topics",
      request: {
        params: CLUSTER_PARAMS,
        query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } },
      },
      responses: {
        200: {
          description: 'Topics, oldest first',
          paginated: true,
          schema: { type: 'array', items: TOPIC_BODY },
        },
        404: { description: 'No such cluster' },
      },
      handler: listTopics,
    }),
    defineRoute<{ params: ClusterParams; body: CreateBody }>({
      ...BASE,
      method: 'post',
      path: '/v1/streaming/clusters/:id/topics',
      scopes: WRITE,
      summary: 'Create a topic',
      description:
        "Partitions count against the cluster's partition limit; retention may not pass the tier's maximum. " +
        "Defaults: 1 partition, as many replicas as brokers (up to 3), the tier's maximum retention, delete, " +
        'and every append durable before it is answered (flush_messages 1).',
      request: {
        params: CLUSTER_PARAMS,
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 300 },
            partitions: { type: 'integer', minimum: 1, maximum: 100_000, 'x-domain-rule': true },
            replicas: { type: 'integer', minimum: 1, maximum: 100, 'x-domain-rule': true },
            retention: RETENTION_SCHEMA,
            cleanup_policy: { type: 'string', enum: CLEANUP_POLICIES },
            flush_messages: FLUSH_MESSAGES_SCHEMA,
            flush_ms: FLUSH_MS_SCHEMA,
          },
        },
      },
      responses: {
        201: { description: 'The new topic, pending until the brokers have it', schema: TOPIC_BODY },
        404: { description: 'No such cluster' },
        409: { description: 'A topic of that name exists' },
        422: {
          description:
            'An invalid topic name, a partition limit, a retention over the maximum, replicas over brokers, a flush_messages of 0',
        },
      },
      handler: createTopic,
    }),
    defineRoute<{ params: TopicParams }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/topics/:name',
      scopes: READ,
      summary: 'A topic, with its partitions as the brokers have them',
      request: { params: TOPIC_PARAMS },
      responses: {
        200: { description: 'The topic', schema: TOPIC_DETAIL },
        404: { description: 'No such cluster or topic' },
      },
      handler: getTopic,
    }),
    defineRoute<{ params: TopicParams; body: PatchBody }>({
      ...BASE,
      method: 'patch',
      path: '/v1/streaming/clusters/:id/topics/:name',
      scopes: WRITE,
      summary: 'Change a topic',
      description: 'Partitions only grow; retention stays within the tier.',
      request: {
        params: TOPIC_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            partitions: { type: 'integer', minimum: 1, maximum: 100_000, 'x-domain-rule': true },
            retention: RETENTION_SCHEMA,
            cleanup_policy: { type: 'string', enum: CLEANUP_POLICIES },
            flush_messages: FLUSH_MESSAGES_SCHEMA,
            flush_ms: FLUSH_MS_SCHEMA,
          },
        },
      },
      responses: {
        200: { description: 'The topic', schema: TOPIC_BODY },
        404: { description: 'No such cluster or topic' },
        422: {
          description: 'A shrink, a partition limit, a retention over the maximum, a flush_messages of 0',
        },
      },
      handler: updateTopic,
    }),
    defineRoute<{ params: TopicParams }>({
      ...BASE,
      method: 'delete',
      path: '/v1/streaming/clusters/:id/topics/:name',
      scopes: WRITE,
      summary: 'Delete a topic and its records',
      request: { params: TOPIC_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such cluster or topic' } },
      handler: deleteTopic,
    }),
  ],
};
