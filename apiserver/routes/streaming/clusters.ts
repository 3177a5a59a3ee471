/**
 * `/v1/streaming/clusters`: event-streaming clusters. The routes validate and write the
 * StreamingCluster object; its controller starts the brokers and reports where they are.
 */
import { objectNameOf, restIdOf } from '../../../crds/ids.js';
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import {
  DEFAULT_TIER,
  formatRetention,
  monthlyPriceUsd,
  regionProblem,
  streamingLimits,
  TIERS,
} from '../../../controllers/streaming/index.js';
import {
  STREAMING_CLUSTER,
  type StreamingCluster,
  type StreamingClusterPhase,
  type StreamingTierName,
} from '../../../crds/streaming.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, type PageQuery } from '../../routing/pagination.js';
import {
  createResource,
  deleteResource,
  listResources,
  readResource,
} from '../../routing/resource-handlers.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  BASE,
  CLUSTER_PARAMS,
  findCluster,
  STREAMING_CLUSTERS,
  invalidField,
  notReadyMessage,
  READ,
  WRITE,
  type ClusterParams,
  type StreamingRouteServices,
} from './streaming-resources.js';

const STATUSES: readonly StreamingClusterPhase[] = [
  'provisioning',
  'running',
  'degraded',
  'deleting',
  'error',
];
const GIGABYTE = 1024 ** 3;

const CLUSTER_BODY = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['esc_0a1b2c3d4e5f'] },
    name: { type: 'string' },
    tier: { type: 'string', enum: TIERS },
    region: { type: 'string' },
    status: { type: 'string', enum: STATUSES },
    message: { type: ['string', 'null'], description: 'Why provisioning, degraded or in error' },
    brokers: { type: 'integer' },
    limits: {
      type: 'object',
      properties: {
        storage_gb: { type: ['integer', 'null'] },
        partitions: { type: ['integer', 'null'], description: 'Across the cluster; null: unlimited' },
        retention_max: { type: ['string', 'null'], description: 'Such as `7d`; null: custom' },
      },
    },
    usage: {
      type: 'object',
      properties: { storage_bytes: { type: 'integer' }, partitions: { type: 'integer' } },
    },
    bootstrap_servers: { type: 'array', items: { type: 'string' } },
    schema_registry_url: { type: 'string' },
    connect_url: { type: 'string' },
    monthly_price_usd: { type: ['number', 'null'], description: 'null: priced by contract' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const BOOTSTRAP_BODY = {
  type: 'object',
  properties: {
    bootstrap_servers: { type: 'array', items: { type: 'string' } },
    security_protocol: { type: 'string', enum: ['SASL_SSL'] },
    sasl_mechanism: { type: 'string', enum: ['SCRAM-SHA-512'] },
    ca_certificate: { type: ['string', 'null'], description: 'PEM of the authority the brokers chain to' },
  },
} as const satisfies JsonSchema;

function restStatus(cluster: StreamingCluster): StreamingClusterPhase {
  if (cluster.metadata.deletionTimestamp) return 'deleting';
  return cluster.status?.phase ?? 'provisioning';
}

export function describeCluster(cluster: StreamingCluster, baseUrl: string) {
  const spec = cluster.spec!;
  const status = cluster.status;
  const limits = streamingLimits(spec.tier);
  const id = restIdOf(cluster.metadata.name);
  return {
    id,
    name: spec.name,
    tier: spec.tier,
    region: spec.region,
    status: restStatus(cluster),
    message: notReadyMessage(status),
    brokers: status?.brokers ?? limits.brokers,
    limits: {
      storage_gb: limits.storageBytes === null ? null : Math.round(limits.storageBytes / GIGABYTE),
      partitions: limits.partitions,
      retention_max: limits.retentionMaxMs === null ? null : formatRetention(limits.retentionMaxMs),
    },
    usage: {
      storage_bytes: status?.usage?.storageBytes ?? 0,
      partitions: status?.usage?.partitions ?? 0,
    },
    bootstrap_servers: status?.bootstrapServers ?? [],
    schema_registry_url: `${baseUrl}/streaming/${id}/schema-registry`,
    connect_url: `${baseUrl}/streaming/${id}/connect`,
    monthly_price_usd: monthlyPriceUsd(spec.tier),
    created_at: cluster.metadata.creationTimestamp ?? '',
  };
}

interface CreateBody {
  name: string;
  tier?: StreamingTierName;
  region: string;
}

interface ListQuery extends PageQuery {
  status?: StreamingClusterPhase;
  tier?: StreamingTierName;
}

/** The clusters as the REST API shows them, their URLs under the platform's public URL. */
function clusterFamily(publicUrl: StreamingRouteServices['publicUrl']) {
  return {
    lookup: STREAMING_CLUSTERS,
    view: (cluster: StreamingCluster) => describeCluster(cluster, publicUrl.href),
    idPrefix: 'esc',
  } as const;
}

async function listStreamingClusters(
  ctx: AuthenticatedContext<{ query: ListQuery }, StreamingRouteServices>,
) {
  const { query } = ctx;
  return listResources(
    ctx,
    clusterFamily(ctx.publicUrl),
    (row) =>
      (query.status === undefined || row.status === query.status) &&
      (query.tier === undefined || row.tier === query.tier),
  );
}

async function createStreamingCluster({
  body,
  principal,
  store,
  vpcConfig,
  publicUrl,
  logger,
}: AuthenticatedContext<{ body: CreateBody }, StreamingRouteServices>) {
  const problem = regionProblem(body.region, vpcConfig.regions);
  if (problem) throw invalidField(problem);
  const name = body.name.trim();
  const tier = body.tier ?? DEFAULT_TIER;
  return createResource({ store, principal }, clusterFamily(publicUrl), name, async ({ id, namespace }) => {
    const created = await store.create<StreamingCluster>(STREAMING_CLUSTER, {
      apiVersion: API_VERSION,
      kind: STREAMING_CLUSTER.kind,
      metadata: { name: objectNameOf(id), namespace },
      spec: { name, tier, region: body.region },
    });
    logger.info({ streamingClusterId: id, tier }, 'streaming cluster created');
    return created;
  });
}

async function getStreamingCluster(
  ctx: AuthenticatedContext<{ params: ClusterParams }, StreamingRouteServices>,
) {
  return readResource(ctx, clusterFamily(ctx.publicUrl));
}

async function deleteStreamingCluster(ctx: AuthenticatedContext<{ params: ClusterParams }>) {
  return deleteResource(ctx, { lookup: STREAMING_CLUSTERS });
}

async function getClusterBootstrap({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: ClusterParams }>) {
  const cluster = await findCluster(store, principal, params.id);
  return {
    data: {
      bootstrap_servers: cluster.status?.bootstrapServers ?? [],
      security_protocol: 'SASL_SSL',
      sasl_mechanism: 'SCRAM-SHA-512',
      ca_certificate: cluster.status?.caCertificate ?? null,
    },
  };
}

export const streamingClusterRoutes: RouteModule<StreamingRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ query: ListQuery }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters',
      scopes: READ,
      summary: "The organization's event-streaming clusters",
      request: {
        query: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: STATUSES },
            tier: { type: 'string', enum: TIERS, 'x-domain-rule': true },
            ...PAGE_QUERY_PROPERTIES,
          },
        },
      },
      responses: {
        200: {
          description: 'Clusters, oldest first',
          paginated: true,
          schema: { type: 'array', items: CLUSTER_BODY },
        },
      },
      handler: listStreamingClusters,
    }),
    defineRoute<{ body: CreateBody }, StreamingRouteServices>({
      ...BASE,
      method: 'post',
      path: '/v1/streaming/clusters',
      scopes: WRITE,
      summary: 'Create an event-streaming cluster',
      description:
        "The tier sets the brokers, storage, partitions and retention (the spec's tier table). The cluster is " +
        'provisioning until its brokers answer; clients then reach them over SASL_SSL with SCRAM-SHA-512 as a ' +
        "cluster user, trusting the cluster's CA (GET …/bootstrap).",
      request: {
        body: {
          type: 'object',
          required: ['name', 'region'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
            tier: { type: 'string', enum: TIERS, default: DEFAULT_TIER, 'x-domain-rule': true },
            region: { type: 'string', minLength: 1, maxLength: 64 },
          },
        },
      },
      responses: {
        201: { description: 'The new cluster, provisioning', schema: CLUSTER_BODY },
        409: { description: 'A cluster of that name exists' },
        422: { description: "region is not one of the platform's regions" },
      },
      handler: createStreamingCluster,
    }),
    defineRoute<{ params: ClusterParams }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id',
      scopes: READ,
      summary: 'An event-streaming cluster',
      request: { params: CLUSTER_PARAMS },
      responses: {
        200: { description: 'The cluster', schema: CLUSTER_BODY },
        404: { description: 'No such cluster' },
      },
      handler: getStreamingCluster,
    }),
    defineRoute<{ params: ClusterParams }>({
      ...BASE,
      method: 'delete',
      path: '/v1/streaming/clusters/:id',
      scopes: WRITE,
      summary: 'Delete an event-streaming cluster',
      description:
        'Stops its brokers and closes their ports; its topics, users and consumer groups go with it.',
      request: { params: CLUSTER_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such cluster' } },
      handler: deleteStreamingCluster,
    }),
    defineRoute<{ params: ClusterParams }>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/bootstrap',
      scopes: READ,
      summary: 'How clients reach a cluster',
      description:
        'Authenticate as a cluster user (POST …/users) with SCRAM-SHA-512 over TLS, trusting ca_certificate.',
      request: { params: CLUSTER_PARAMS },
      responses: {
        200: { description: 'Bootstrap servers, protocol and CA', schema: BOOTSTRAP_BODY },
        404: { description: 'No such cluster' },
      },
      handler: getClusterBootstrap,
    }),
  ],
};
