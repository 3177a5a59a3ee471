import { randomUUID } from 'node:crypto';
import { DEFAULT_SHARES, DEFAULT_THRESHOLD } from '../../../controllers/vaultcluster/index.js';
import { VAULT_ENGINE_VERSION, vaultClusterId } from '../../../vault/vault-engine.js';
import { VAULT_CLUSTER, type VaultCluster, type VaultClusterPhase } from '../../../crds/vault-cluster.js';
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { limitOffsetProperties, type LimitOffsetQuery } from '../../routing/pagination.js';
import {
  defineRoute,
  type RouteDefinition,
  type RouteModule,
  type AuthenticatedContext,
} from '../../routing/route.js';
import { VAULT_ACCESS_ROUTES } from './access.js';
import { VAULT_DATA_ROUTES } from './data.js';
import {
  answering,
  callerOf,
  CLUSTER_PARAMS,
  clusterEngine,
  findCluster,
  namespaceOf,
  READ_SCOPES,
  WRITE_SCOPES,
  type VaultRouteServices,
} from './vault-request.js';

const PHASES: readonly VaultClusterPhase[] = ['provisioning', 'running', 'sealed', 'error'];

const CLUSTER_FIELDS = {
  id: { type: 'string' },
  name: { type: 'string' },
  status: { type: 'string', enum: PHASES },
  sealed: { type: 'boolean' },
  storage_used_mb: { type: 'integer' },
  total_secrets: { type: 'integer' },
  api_address: { type: 'string', format: 'uri' },
  auth_methods: { type: 'array', items: { type: 'string' } },
  created_at: { type: 'string', format: 'date-time' },
} as const satisfies Record<string, JsonSchema>;

const CLUSTER_DETAIL = {
  type: 'object',
  properties: {
    ...CLUSTER_FIELDS,
    policies: { type: 'array', items: { type: 'string' } },
    secret_engines: { type: 'array', items: { type: 'string' } },
    high_availability: { type: 'boolean' },
    replication_mode: { type: 'string' },
    version: { type: 'string' },
  },
} as const satisfies JsonSchema;

export const SEAL_STATUS = {
  type: 'object',
  properties: {
    sealed: { type: 'boolean' },
    t: { type: 'integer', description: 'Unseal keys needed' },
    n: { type: 'integer', description: 'Unseal keys made' },
    progress: { type: 'integer', description: 'Unseal keys given so far' },
  },
} as const satisfies JsonSchema;

interface CreateBody {
  name: string;
  auto_unseal?: boolean;
  shares?: number;
  threshold?: number;
  settings?: { default_lease_ttl?: number; max_lease_ttl?: number };
}

const MEBIBYTE = 1024 * 1024;

/** The REST shape of a cluster: the object's phase, corrected by the live seal state it may lag behind. */
async function describe(services: VaultRouteServices, cluster: VaultCluster, detail: boolean) {
  const namespace = cluster.metadata.namespace ?? '';
  const id = vaultClusterId(namespace, cluster.metadata.name);
  const initialized = await services.vault.isInitialized(id);
  const handle = services.vault.forCluster(id);
  let status: VaultClusterPhase = cluster.status?.phase ?? 'provisioning';
  let sealed = true;
  let usage = { totalSecrets: 0, storageBytes: 0 };
  let summary = { authMethods: [] as string[], policies: [] as string[] };
  if (initialized) {
    sealed = (await handle.status()).sealed;
    if (status !== 'error') status = sealed ? 'sealed' : 'running';
    usage = await handle.usage();
    summary = await handle.summary();
  }
  const listed = {
    id: cluster.metadata.name,
    name: cluster.spec?.name ?? cluster.metadata.name,
    status,
    sealed,
    storage_used_mb: Math.ceil(usage.storageBytes / MEBIBYTE),
    total_secrets: usage.totalSecrets,
    api_address: services.vaultApiAddress(cluster.metadata.name),
    auth_methods: summary.authMethods,
    created_at: cluster.metadata.creationTimestamp ?? '',
  };
  if (!detail) return listed;
  return {
    ...listed,
    policies: summary.policies,
    secret_engines: ['kv', 'transit'],
    high_availability: false,
    replication_mode: 'none',
    version: VAULT_ENGINE_VERSION,
  };
}

async function listVaultClusters(
  ctx: AuthenticatedContext<{ query: LimitOffsetQuery & { status?: VaultClusterPhase } }, VaultRouteServices>,
) {
  const objects = await ctx.store.list<VaultCluster>(VAULT_CLUSTER, {
    namespace: namespaceOf(ctx.principal),
  });
  const sorted = objects.items
    .filter((cluster) => !cluster.metadata.deletionTimestamp)
    .sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
  const described = await Promise.all(sorted.map((cluster) => describe(ctx, cluster, false)));
  const filtered = ctx.query.status
    ? described.filter((cluster) => cluster.status === ctx.query.status)
    : described;
  return { data: filtered.slice(ctx.query.offset, ctx.query.offset + ctx.query.limit) };
}

async function createVaultCluster(ctx: AuthenticatedContext<{ body: CreateBody }, VaultRouteServices>) {
  const namespace = namespaceOf(ctx.principal);
  const id = randomUUID();
  const clusterId = vaultClusterId(namespace, id);
  const body = ctx.body;
  const autoUnseal = body.auto_unseal ?? false;
  const shares = body.shares ?? DEFAULT_SHARES;
  const threshold = body.threshold ?? DEFAULT_THRESHOLD;
  // The keyring is written first, in one transaction, and the VaultCluster after it: the
  // controller acts only on objects, so it never sees a cluster without its keys, and the
  // unseal keys can be answered only because they were made here. When creating the object
  // fails the keyring is destroyed at once; one left behind by a crash has no object and is
  // collected by comparing `VaultEngine.clusterIds()` with the VaultClusters that exist.
  const unsealKeys = await answering(() =>
    ctx.vault.initialize(clusterId, {
      shares,
      threshold,
      autoUnseal,
      defaultLeaseTtlSeconds: body.settings?.default_lease_ttl,
      maxLeaseTtlSeconds: body.settings?.max_lease_ttl,
    }),
  );
  let created: VaultCluster;
  try {
    created = await ctx.store.create<VaultCluster>(VAULT_CLUSTER, {
      apiVersion: API_VERSION,
      kind: 'VaultCluster',
      metadata: { name: id, namespace },
      spec: {
        name: body.name,
        autoUnseal,
        shares,
        threshold,
        ...(body.settings && {
          settings: {
            ...(body.settings.default_lease_ttl !== undefined && {
              defaultLeaseTtlSeconds: body.settings.default_lease_ttl,
            }),
            ...(body.settings.max_lease_ttl !== undefined && {
              maxLeaseTtlSeconds: body.settings.max_lease_ttl,
            }),
          },
        }),
      },
    });
  } catch (error) {
    await ctx.vault.destroy(clusterId);
    throw error;
  }
  await answering(() =>
    ctx.vault
      .forCluster(clusterId)
      .perform(
        callerOf(ctx),
        { operation: 'UPDATE', path: 'sys/init', successStatus: 201, requiresUnseal: false },
        async () => undefined,
      ),
  );
  return {
    status: 201,
    data: {
      id,
      name: body.name,
      status: 'provisioning',
      sealed: true,
      created_at: created.metadata.creationTimestamp,
      unseal_keys: unsealKeys,
    },
  };
}

async function getVaultCluster(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  return { data: await describe(ctx, await findCluster(ctx), true) };
}

async function deleteVaultCluster(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  const cluster = await findCluster(ctx);
  await ctx.store.delete(VAULT_CLUSTER, cluster.metadata.namespace, cluster.metadata.name);
  return { status: 204 };
}

async function unsealVaultCluster(
  ctx: AuthenticatedContext<{ params: { id: string }; body: { key: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const status = await answering(() => cluster.unseal(callerOf(ctx), ctx.body.key));
  return { data: { sealed: status.sealed, t: status.t, n: status.n, progress: status.progress } };
}

async function sealVaultCluster(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const status = await answering(() => cluster.seal(callerOf(ctx)));
  return { data: { sealed: status.sealed, t: status.t, n: status.n, progress: status.progress } };
}

const CLUSTER_ROUTES: RouteDefinition<VaultRouteServices>[] = [
  defineRoute<{ query: LimitOffsetQuery & { status?: VaultClusterPhase } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: "List the organization's vault clusters",
    request: {
      query: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: PHASES },
          ...limitOffsetProperties({ defaultLimit: 20, maxLimit: 100 }),
        },
      },
    },
    responses: {
      200: {
        description: 'Clusters',
        schema: { type: 'array', items: { type: 'object', properties: CLUSTER_FIELDS } },
      },
    },
    handler: listVaultClusters,
  }),
  defineRoute<{ body: CreateBody }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Create a vault cluster; its unseal keys are in this answer only',
    request: {
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
          auto_unseal: { type: 'boolean', default: false },
          shares: { type: 'integer', minimum: 1, maximum: 255, default: DEFAULT_SHARES },
          threshold: { type: 'integer', minimum: 1, maximum: 255, default: DEFAULT_THRESHOLD },
          settings: {
            type: 'object',
            additionalProperties: false,
            properties: {
              default_lease_ttl: { type: 'integer', minimum: 1 },
              max_lease_ttl: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    },
    responses: {
      201: {
        description: 'The new cluster with its unseal keys (empty with auto_unseal)',
        schema: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            status: { type: 'string' },
            sealed: { type: 'boolean' },
            created_at: { type: 'string', format: 'date-time' },
            unseal_keys: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      400: { description: 'Invalid shares, threshold or settings' },
    },
    handler: createVaultCluster,
  }),
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'Read a vault cluster',
    request: { params: CLUSTER_PARAMS },
    responses: {
      200: { description: 'The cluster', schema: CLUSTER_DETAIL },
      404: { description: 'No such cluster' },
    },
    handler: getVaultCluster,
  }),
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'delete',
    path: '/api/v1/vault/:id',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Delete a vault cluster; its keys, secrets, tokens and audit log are destroyed',
    request: { params: CLUSTER_PARAMS },
    responses: { 204: { description: 'Deletion accepted' }, 404: { description: 'No such cluster' } },
    handler: deleteVaultCluster,
  }),
  defineRoute<{ params: { id: string }; body: { key: string } }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/unseal',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Give one unseal key; the cluster unseals once the threshold is reached',
    request: {
      params: CLUSTER_PARAMS,
      body: {
        type: 'object',
        required: ['key'],
        additionalProperties: false,
        properties: { key: { type: 'string', minLength: 1, maxLength: 512 } },
      },
    },
    responses: {
      200: { description: 'Seal status', schema: SEAL_STATUS },
      400: { description: 'Not an unseal key of this cluster' },
    },
    handler: unsealVaultCluster,
  }),
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/seal',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Seal the cluster: its data is unreadable until it is unsealed again',
    request: { params: CLUSTER_PARAMS },
    responses: { 200: { description: 'Seal status', schema: SEAL_STATUS } },
    handler: sealVaultCluster,
  }),
];

/** Every `/api/v1/vault` route, over the vault engine the platform declares. */
export const vaultRoutes: RouteModule<VaultRouteServices> = {
  area: 'vault',
  routes: [...CLUSTER_ROUTES, ...VAULT_DATA_ROUTES, ...VAULT_ACCESS_ROUTES],
};
