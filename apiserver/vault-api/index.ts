import express, { type Router } from 'express';
import type { ObjectStore } from '../../control-plane/types.js';
import type { VaultEngine } from '../../vault/vault-engine.js';
import { OidcProviders } from '../../vault/jwt-login.js';
import { VaultError } from '../../vault/vault-error.js';
import type { Logger } from '../../observability/logger.js';
import { authMethodRoutes } from './auth-method-routes.js';
import { ClusterDirectory } from './cluster-directory.js';
import { kvRoutes } from './kv-routes.js';
import { policyRoutes } from './policy-routes.js';
import { sealRoutes } from './sys-routes.js';
import { tokenRoutes } from './token-routes.js';
import { transitRoutes } from './transit-routes.js';
import { param, send, vaultErrorBody } from './wire-format.js';
import { fromVaultError } from '../errors.js';
import { areaErrorHandler } from '../routing/area-errors.js';

export interface VaultApiDependencies {
  engine: VaultEngine;
  store: ObjectStore;
  logger: Logger;
  /** Largest JSON body accepted (default 1 MiB). */
  bodyLimitBytes?: number;
  /** OIDC discovery and key caches for jwt logins; one per process (default: a new one). */
  oidcProviders?: OidcProviders;
}

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
export function vaultApi(deps: VaultApiDependencies): Router {
  const { engine, logger } = deps;
  const directory = new ClusterDirectory(deps.store, engine);
  const router = express.Router({ mergeParams: true });

  router.use(async (req, res, next) => {
    const cluster = await directory.find(param(req, 'clusterId'));
    if (!cluster) {
      send(res, 404, { errors: [] });
      return;
    }
    res.locals.vaultCluster = cluster;
    res.set('cache-control', 'no-store');
    next();
  });
  const limitBytes = deps.bodyLimitBytes ?? 1024 ** 2;
  router.use(express.json({ limit: limitBytes, type: () => true, strict: false }));

  sealRoutes(router, engine, engine.now);
  policyRoutes(router);
  kvRoutes(router);
  transitRoutes(router);
  tokenRoutes(router);
  authMethodRoutes(router, engine, deps.oidcProviders ?? new OidcProviders(engine.now));

  router.use((_req, res) => send(res, 404, { errors: [] }));
  router.use(
    areaErrorHandler({
      refusal: (error) => (error instanceof VaultError ? fromVaultError(error) : undefined),
      render: (res, answer) => {
        const { status, body } = vaultErrorBody(answer);
        send(res, status, body);
      },
      logger,
      failure: 'vault API request failed',
      limitBytes,
    }),
  );
  return router;
}
