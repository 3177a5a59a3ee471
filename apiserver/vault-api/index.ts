import express, { type ErrorRequestHandler, type Router } from 'express';
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
import { errorAnswer, param, send } from './wire-format.js';

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
  router.use(express.json({ limit: deps.bodyLimitBytes ?? 1024 ** 2, type: () => true, strict: false }));

  sealRoutes(router, engine, engine.now);
  policyRoutes(router);
  kvRoutes(router);
  transitRoutes(router);
  tokenRoutes(router);
  authMethodRoutes(router, engine, deps.oidcProviders ?? new OidcProviders(engine.now));

  router.use((_req, res) => send(res, 404, { errors: [] }));
  const answerError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    if (error instanceof VaultError) {
      const answer = errorAnswer(error);
      send(res, answer.status, answer.body);
      return;
    }
    const status = (error as { status?: unknown; type?: unknown }).status;
    if (status === 413) {
      send(res, 413, { errors: ['request body too large'] });
      return;
    }
    if (status === 400 && (error as { type?: unknown }).type === 'entity.parse.failed') {
      send(res, 400, { errors: ['failed to parse JSON input'] });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'vault API request failed');
    send(res, 500, { errors: ['internal error'] });
  };
  router.use(answerError);
  return router;
}
