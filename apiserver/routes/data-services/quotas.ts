/** `/v1/quotas`: what the organization may hold and holds. */
import { quotaLimit, quotaUsage, type QuotaName } from '../../../controllers/data-services/index.js';
import { claimedVpcCount } from '../../../controllers/vpc/index.js';
import { STREAMING_CLUSTER, STREAMING_TOPIC, type StreamingTopic } from '../../../crds/streaming.js';
import { VAULT_CLUSTER } from '../../../crds/vault-cluster.js';
import type { VpcConfig } from '../../../config/vpc.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { withoutDeleted } from '../../routing/deleted.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import { BASE, type DataServiceRouteServices } from './resources.js';

const QUOTA_BODY = {
  type: 'object',
  properties: {
    resource: { type: 'string' },
    limit: { type: ['integer', 'null'], description: 'null: no limit' },
    used: { type: 'integer' },
  },
} as const satisfies JsonSchema;

const DATA_SERVICE_QUOTAS: readonly QuotaName[] = [
  'databases',
  'database_storage_gb',
  'nfs_shares',
  'nfs_storage_gb',
  'backups',
];

async function listQuotas({
  principal,
  store,
  database,
  quotas,
  vpcConfig,
}: AuthenticatedContext<Record<never, never>, DataServiceRouteServices & { vpcConfig: VpcConfig }>) {
  const namespace = tenantNamespace(principal);
  const usage = await quotaUsage(database, namespace);
  const vaultClusters = await store.list(VAULT_CLUSTER, { namespace });
  const streamingClusters = withoutDeleted((await store.list(STREAMING_CLUSTER, { namespace })).items);
  const topics = withoutDeleted((await store.list<StreamingTopic>(STREAMING_TOPIC, { namespace })).items);
  return {
    data: [
      {
        resource: 'vpcs',
        limit: vpcConfig.limitPerOrganization,
        used: await claimedVpcCount(database, namespace),
      },
      {
        resource: 'vault_clusters',
        limit: null,
        used: withoutDeleted(vaultClusters.items).length,
      },
      ...DATA_SERVICE_QUOTAS.map((quota) => ({
        resource: quota,
        limit: quotaLimit(quotas, quota),
        used: usage[quota],
      })),
      // Each cluster's tier limits its own partitions; the organization has no limit of its own.
      { resource: 'streaming_clusters', limit: null, used: streamingClusters.length },
      {
        resource: 'streaming_partitions',
        limit: null,
        used: topics.reduce((sum, topic) => sum + (topic.spec?.partitions ?? 0), 0),
      },
    ],
  };
}

export const quotaRoutes: RouteModule<DataServiceRouteServices & { vpcConfig: VpcConfig }> = {
  area: 'resources',
  routes: [
    defineRoute<Record<never, never>, DataServiceRouteServices & { vpcConfig: VpcConfig }>({
      ...BASE,
      method: 'get',
      path: '/v1/quotas',
      tags: ['quotas'],
      summary: "The organization's quotas: limit and use",
      description: 'Deleted resources do not count. A create past a limit is answered 429 naming the quota.',
      responses: { 200: { description: 'Quotas', schema: { type: 'array', items: QUOTA_BODY } } },
      handler: listQuotas,
    }),
  ],
};
