import type { IncomingHttpHeaders } from 'node:http';
import { organizationNamespace } from '../../../accounts/organizations.js';
import {
  vaultClusterId,
  type VaultCaller,
  type VaultClusterEngine,
  type VaultEngine,
} from '../../../vault/vault-engine.js';
import { VaultError } from '../../../vault/vault-error.js';
import { VAULT_CLUSTER, type VaultCluster } from '../../../crds/vault-cluster.js';
import { ApiError, forbidden, fromVaultError } from '../../errors.js';
import { KeptAtRevision } from '../../routing/kept-at-revision.js';
import { findInNamespace, type OrganizationLookup } from '../../routing/tenancy.js';
import type { ObjectSchema } from '../../routing/json-schema.js';
import type { RouteContext } from '../../routing/route.js';
import type { Principal } from '../../../accounts/principal.js';

/** What the vault routes need beyond the shared route services. */
export interface VaultRouteServices {
  vault: VaultEngine;
  /** Where a cluster's Vault-compatible API answers. */
  vaultApiAddress(name: string): string;
}

export const READ_SCOPES = ['vault:read'] as const;
export const WRITE_SCOPES = ['vault:write'] as const;

export const CLUSTER_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 253, description: 'The cluster id' } },
} as const satisfies ObjectSchema;

/** Runs engine work, answering its refusals as API errors. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof VaultError) throw fromVaultError(error);
    throw error;
  }
}

/** The caller's organization namespace; every vault route works inside it only. */
export function namespaceOf(principal: Principal): string {
  if (principal.organizationId === undefined)
    throw forbidden('select an organization before using vault clusters');
  return organizationNamespace(principal.organizationId);
}

/** The parts of a route context that address a cluster. */
export type ClusterRequest = Pick<RouteContext, 'store'> & { principal: Principal; params: { id: string } };

/**
 * The VaultCluster with this id in the caller's organization; another tenant's is a 404, and so is
 * one whose deletion was accepted: its keys and secrets are being destroyed.
 */
export async function findCluster(ctx: ClusterRequest): Promise<VaultCluster> {
  return findInNamespace(ctx.store, namespaceOf(ctx.principal), VAULT_CLUSTERS, ctx.params.id);
}

const VAULT_CLUSTERS: OrganizationLookup<VaultCluster> = {
  type: VAULT_CLUSTER,
  noun: 'vault cluster',
  malformedIsMissing: true,
};

/**
 * The engine ids of the clusters named in paths, by namespace and id: every vault request finds
 * its cluster, and the object found (parsed whole) gives only its namespace and name.
 */
const keptClusterIds = new KeptAtRevision<string>();

/** The engine of the cluster named in the path; 404 when the cluster or its keyring is missing. */
export async function clusterEngine(
  ctx: ClusterRequest & Pick<VaultRouteServices, 'vault'>,
): Promise<VaultClusterEngine> {
  const clusterId = await keptClusterIds.answer(
    ctx.store,
    `${namespaceOf(ctx.principal)}/${ctx.params.id}`,
    async () => {
      const cluster = await findCluster(ctx);
      return vaultClusterId(cluster.metadata.namespace ?? '', cluster.metadata.name);
    },
  );
  const engine = ctx.vault.forCluster(clusterId);
  if (!(await engine.initialized())) {
    throw new ApiError(
      503,
      'not_initialized',
      `vault cluster ${ctx.params.id} is not initialised; create clusters through POST /api/v1/vault or set spec.autoUnseal`,
    );
  }
  return engine;
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const match = /^\s*\S+\s+(\S+)\s*$/.exec(headers.authorization ?? '');
  const apiKey = headers['x-api-key'];
  return match?.[1] ?? (typeof apiKey === 'string' ? apiKey : undefined);
}

/**
 * Who calls, for the engine: the platform credential (recorded HMAC'd in the audit log) and,
 * when the request carries `X-Vault-Token`, that token, whose policies then govern the request.
 */
export function callerOf(ctx: Pick<RouteContext, 'headers' | 'clientIp'>): VaultCaller {
  const vaultToken = ctx.headers['x-vault-token'];
  return {
    token: typeof vaultToken === 'string' && vaultToken !== '' ? vaultToken : undefined,
    credential: bearer(ctx.headers),
    clientAddress: ctx.clientIp,
    userAgent: typeof ctx.headers['user-agent'] === 'string' ? ctx.headers['user-agent'] : '',
  };
}
