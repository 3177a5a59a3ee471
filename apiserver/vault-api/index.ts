import type { ObjectStore } from '../../control-plane/types.js';
import type { VaultEngine } from '../../vault/vault-engine.js';
import { OidcProviders } from '../../vault/jwt-login.js';
import { VaultError } from '../../vault/vault-error.js';
import type { Logger } from '../../observability/logger.js';
import { authMethodRoutes } from './auth-method-routes.js';
import { ClusterDirectory, type AddressedCluster } from './cluster-directory.js';
import { kvRoutes } from './kv-routes.js';
import { policyRoutes } from './policy-routes.js';
import { sealRoutes } from './sys-routes.js';
import { tokenRoutes } from './token-routes.js';
import { transitRoutes } from './transit-routes.js';
import { send, vaultErrorBody } from './wire-format.js';
import { fromVaultError } from '../errors.js';
import { wireApi, WireRoutes, type WireApi } from '../routing/wire-api.js';

export interface VaultApiDependencies {
  engine: VaultEngine;
  store: ObjectStore;
  logger: Logger;
  /** Largest JSON body accepted (default 1 MiB). */
  bodyLimitBytes?: number;
  /** OIDC discovery and key caches for jwt logins; one per process (default: a new one). */
  oidcProviders?: OidcProviders;
}

/** Where the API is mounted: a cluster's address is `{base_url}/vault/<cluster id>`. */
export const VAULT_API_PATH = '/vault/:clusterId';

/** Where a cluster's Vault-compatible API answers: the address VaultCluster status and the REST API show. */
export function vaultApiAddress(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/vault/${name}`;
}

/**
 * The Vault-compatible HTTP API of every vault cluster, in Vault's wire format (Vault's JSON
 * bodies, errors as `{"errors": [...]}` with Vault's status codes). Mount it at
 * `/vault/:clusterId`: a cluster's address is `{base_url}/vault/<cluster id>` and clients call
 * `<address>/v1/...`. Authentication is `X-Vault-Token` alone (plus the unseal and login
 * endpoints, which take none); every data operation goes through the engine, so the token's
 * policies are enforced and the audit entry is written before the answer.
 */
export function vaultApi(deps: VaultApiDependencies): WireApi {
  const { engine, logger } = deps;
  const directory = new ClusterDirectory(deps.store, engine);
  const routes = new WireRoutes<AddressedCluster>();
  sealRoutes(routes, engine, engine.now);
  policyRoutes(routes);
  kvRoutes(routes);
  transitRoutes(routes);
  tokenRoutes(routes);
  authMethodRoutes(routes, engine, deps.oidcProviders ?? new OidcProviders(engine.now));

  return wireApi({
    path: VAULT_API_PATH,
    routes,
    async admit(_req, params) {
      const cluster = await directory.find(params.clusterId ?? '');
      if (!cluster) throw new VaultError('not_found', 'no such vault cluster');
      return cluster;
    },
    notFound: () => new VaultError('not_found', 'no such path'),
    errors: {
      refusal: (error) => (error instanceof VaultError ? fromVaultError(error) : undefined),
      render: (res, answer) => {
        const { status, body } = vaultErrorBody(answer);
        send(res, status, body);
      },
      logger,
      failure: 'vault API request failed',
      limitBytes: deps.bodyLimitBytes ?? 1024 ** 2,
    },
  });
}
