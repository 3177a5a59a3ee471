/** `/v1/nfs-shares`: shared file systems. The controller makes and measures them. */
import { shareQuotaAmounts } from '../../../controllers/data-services/index.js';
import { restIdOf } from '../../../crds/ids.js';
import { NFS_SHARE, type NfsShare, type NfsSharePhase } from '../../../crds/data-services.js';
import { VPC } from '../../../crds/vpc.js';
import { isStoreError } from '../../../control-plane/types.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  createResource,
  deleteResource,
  listResources,
  readResource,
} from '../../routing/resource-handlers.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import {
  BASE,
  createWithinQuota,
  NFS_SHARES,
  ID_PARAMS,
  invalidField,
  MOUNT,
  NAME,
  READ,
  WRITE,
  type DataServiceRouteServices,
  type IdParams,
} from './resources.js';

const STATUSES: readonly NfsSharePhase[] = ['provisioning', 'available', 'deleting', 'error'];

const SHARE_BODY = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['nfs_0a1b2c3d4e5f'] },
    name: { type: 'string' },
    size_gb: { type: 'integer' },
    used_mb: { type: 'integer' },
    vpc_id: { type: ['string', 'null'] },
    status: { type: 'string', enum: STATUSES },
    realization: { type: 'string', enum: ['real', 'recorded'] },
    message: { type: ['string', 'null'] },
    quota_exceeded: { type: 'boolean', description: 'The share holds more than size_gb (a soft quota)' },
    mount: MOUNT,
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

export function describeShare(share: NfsShare) {
  const status = share.status;
  return {
    id: restIdOf(share.metadata.name),
    name: share.spec!.name,
    size_gb: share.spec!.sizeGb,
    used_mb: status?.usedMb ?? 0,
    vpc_id: share.spec!.vpcId ?? null,
    status: share.metadata.deletionTimestamp ? 'deleting' : (status?.phase ?? 'provisioning'),
    realization: status?.realization ?? 'real',
    message: status?.message ?? null,
    quota_exceeded:
      status?.conditions?.some(
        (condition) => condition.type === 'QuotaExceeded' && condition.status === 'True',
      ) ?? false,
    mount: status?.mount ?? null,
    created_at: share.metadata.creationTimestamp ?? '',
  };
}

const base = { ...BASE, tags: ['nfs-shares'] } as const;

interface CreateBody {
  name: string;
  size_gb: number;
  vpc_id?: string;
}

const SHARE_FAMILY = { lookup: NFS_SHARES, view: describeShare, idPrefix: 'nfs' } as const;

async function listNfsShares(ctx: AuthenticatedContext<{ query: PageQuery }>) {
  return listResources(ctx, SHARE_FAMILY);
}

async function createNfsShare({
  body,
  principal,
  store,
  database,
  now,
  quotas,
  workloadsConfig,
}: AuthenticatedContext<{ body: CreateBody }, DataServiceRouteServices>) {
  if (body.size_gb > workloadsConfig.maxStorageGb) {
    throw invalidField({
      field: 'size_gb',
      message: `must be at most ${workloadsConfig.maxStorageGb}`,
    });
  }
  if (body.vpc_id !== undefined) {
    try {
      await store.get(VPC, tenantNamespace(principal), body.vpc_id);
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
      throw invalidField({
        field: 'vpc_id',
        message: `${body.vpc_id} is not a VPC of the organization`,
      });
    }
  }
  const name = body.name.trim();
  return createResource({ store, principal }, SHARE_FAMILY, name, ({ id, namespace }) =>
    createWithinQuota<NfsShare>(
      { store, database, now, quotas },
      NFS_SHARE,
      id,
      shareQuotaAmounts(body.size_gb),
      {
        namespace,
        spec: {
          name,
          sizeGb: body.size_gb,
          ...(body.vpc_id === undefined ? {} : { vpcId: body.vpc_id }),
        },
      },
    ),
  );
}

async function getNfsShare(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return readResource(ctx, SHARE_FAMILY);
}

async function deleteNfsShare(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return deleteResource(ctx, SHARE_FAMILY);
}

export const nfsShareRoutes: RouteModule<DataServiceRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ query: PageQuery }>({
      ...base,
      method: 'get',
      path: '/v1/nfs-shares',
      scopes: READ,
      summary: "The organization's NFS shares",
      request: { query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } } },
      responses: {
        200: {
          description: 'Shares, oldest first',
          paginated: true,
          schema: { type: 'array', items: SHARE_BODY },
        },
      },
      handler: listNfsShares,
    }),
    defineRoute<{ body: CreateBody }, DataServiceRouteServices>({
      ...base,
      method: 'post',
      path: '/v1/nfs-shares',
      scopes: WRITE,
      summary: 'Create an NFS share',
      description:
        'size_gb is a soft quota: a share that holds more reports quota_exceeded. On the embedded platform a share ' +
        'is a directory on the platform host, not served over NFS; its message says so.',
      request: {
        body: {
          type: 'object',
          required: ['name', 'size_gb'],
          additionalProperties: false,
          properties: {
            name: NAME,
            size_gb: { type: 'integer', minimum: 1, maximum: 65_536, 'x-domain-rule': true },
            vpc_id: { type: 'string', minLength: 1, maxLength: 64 },
          },
        },
      },
      responses: {
        201: { description: 'The new share, provisioning', schema: SHARE_BODY },
        409: { description: 'A share of that name exists' },
        422: { description: 'size_gb past the limit, or vpc_id names no VPC of the organization' },
        429: { description: 'A quota is reached' },
      },
      handler: createNfsShare,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'get',
      path: '/v1/nfs-shares/:id',
      scopes: READ,
      summary: 'An NFS share',
      request: { params: ID_PARAMS },
      responses: {
        200: { description: 'The share', schema: SHARE_BODY },
        404: { description: 'No such share' },
      },
      handler: getNfsShare,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'delete',
      path: '/v1/nfs-shares/:id',
      scopes: WRITE,
      summary: 'Delete an NFS share and its files',
      request: { params: ID_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such share' } },
      handler: deleteNfsShare,
    }),
  ],
};
