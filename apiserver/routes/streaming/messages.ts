/**
 * `/v1/streaming/clusters/:id/topics/:name/messages`: a topic's recent records for a message
 * browser (the console, `cloudplane streaming topics tail`). Read by the platform itself, not as
 * one of the cluster's users, so the read needs the `streaming:read` scope and is audited.
 */
import { STREAMING_TOPIC, type StreamingTopic } from '../../../crds/streaming.js';
import { WorkloadError, type TopicRecord } from '../../../workloads/runtime.js';
import { conflict, notFound, unprocessable } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  BASE,
  brokersOf,
  CLUSTER_PARAMS,
  findChild,
  findCluster,
  READ,
  type ClusterParams,
  type StreamingRouteServices,
} from './streaming-resources.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const DEFAULT_MAX_BYTES = 1024 * 1024;

const MESSAGES_PARAMS = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    ...CLUSTER_PARAMS.properties,
    name: { type: 'string', minLength: 1, maxLength: 249 },
  },
} as const satisfies ObjectSchema;

interface MessagesParams extends ClusterParams {
  name: string;
}

interface MessagesQuery {
  partition?: number;
  offset?: number;
  limit: number;
  max_bytes: number;
}

const TEXT_OR_BASE64 = { type: ['string', 'null'] } as const satisfies JsonSchema;

const MESSAGE = {
  type: 'object',
  required: ['partition', 'offset', 'timestamp', 'key', 'value', 'headers', 'encoding'],
  properties: {
    partition: { type: 'integer' },
    offset: { type: 'integer' },
    timestamp: { type: 'string', format: 'date-time' },
    key: TEXT_OR_BASE64,
    value: TEXT_OR_BASE64,
    headers: {
      type: 'array',
      items: { type: 'object', properties: { key: { type: 'string' }, value: TEXT_OR_BASE64 } },
    },
    encoding: {
      type: 'string',
      enum: ['utf8', 'base64'],
      description: 'base64 when the key, the value or a header value is not valid UTF-8 text',
    },
  },
} as const satisfies JsonSchema;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isText(bytes: Buffer | null): boolean {
  if (bytes === null) return true;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A record as JSON: its bytes as text when all of them are UTF-8, otherwise all as base64. */
export function describeRecord(record: TopicRecord) {
  const text = [record.key, record.value, ...record.headers.map((header) => header.value)].every(isText);
  const encoding: BufferEncoding = text ? 'utf8' : 'base64';
  const encode = (bytes: Buffer | null) => (bytes === null ? null : bytes.toString(encoding));
  return {
    partition: record.partition,
    offset: record.offset,
    timestamp: new Date(record.timestamp).toISOString(),
    key: encode(record.key),
    value: encode(record.value),
    headers: record.headers.map((header) => ({ key: header.key, value: encode(header.value) })),
    encoding: text ? 'utf8' : 'base64',
  };
}

async function listTopicMessages({
  params,
  query,
  principal,
  store,
  streamingRuntime,
  logger,
  requestId,
}: AuthenticatedContext<{ params: MessagesParams; query: MessagesQuery }, StreamingRouteServices>) {
  const cluster = await findCluster(store, principal, params.id);
  const topic = await findChild<StreamingTopic>(store, STREAMING_TOPIC, cluster, params.name);
  if (!topic) throw notFound(`topic ${params.name} not found in streaming cluster ${cluster.spec!.name}`);
  if (query.partition !== undefined && query.partition >= topic.spec!.partitions) {
    throw unprocessable(`partition: topic ${params.name} has partitions 0 to ${topic.spec!.partitions - 1}`, {
      details: { field: 'partition' },
    });
  }
  const { runtime, workload } = brokersOf(streamingRuntime, cluster);
  let records: TopicRecord[] | undefined;
  try {
    records = await runtime.readRecords(workload, params.name, {
      ...(query.partition === undefined ? {} : { partition: query.partition }),
      ...(query.offset === undefined ? {} : { offset: query.offset }),
      limit: query.limit,
      maxBytes: query.max_bytes,
    });
  } catch (error) {
    if (error instanceof WorkloadError) throw conflict(error.message);
    throw error;
  }
  if (!records) throw conflict(`topic ${params.name} is not on the brokers yet; ask again shortly`);
  logger.info(
    {
      audit: 'streaming_topic.messages_read',
      requestId,
      principal: { kind: principal.kind, id: principal.id },
      organizationId: principal.organizationId,
      cluster: cluster.metadata.name,
      topic: params.name,
      partition: query.partition ?? null,
      offset: query.offset ?? null,
      records: records.length,
    },
    'streaming topic records read',
  );
  return { data: records.map(describeRecord) };
}

export const streamingMessageRoutes: RouteModule<StreamingRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ params: MessagesParams; query: MessagesQuery }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/topics/:name/messages',
      scopes: READ,
      summary: "A topic's recent records",
      description:
        'From `offset` on (in the partition asked, or in each), or without it the newest `limit` records; oldest ' +
        'first. Keys, values and header values are UTF-8 text when they all are, otherwise base64 (`encoding`). ' +
        'Read by the platform, not as a cluster user: each read is audited. Batches compressed with a codec ' +
        'other than gzip are passed over.',
      request: {
        params: MESSAGES_PARAMS,
        query: {
          type: 'object',
          properties: {
            partition: { type: 'integer', minimum: 0 },
            offset: { type: 'integer', minimum: 0 },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
            max_bytes: {
              type: 'integer',
              minimum: 1,
              maximum: 16 * DEFAULT_MAX_BYTES,
              default: DEFAULT_MAX_BYTES,
            },
          },
        },
      },
      responses: {
        200: { description: 'The records, oldest first', schema: { type: 'array', items: MESSAGE } },
        404: { description: 'No such cluster or topic' },
        409: { description: 'The cluster is not running, or its records cannot be read here' },
        422: { description: 'A partition the topic does not have' },
      },
      handler: listTopicMessages,
    }),
  ],
};
