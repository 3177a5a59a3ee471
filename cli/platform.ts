import { createAccounts } from '../accounts/index.js';
import type { Router } from 'express';
import { oauthRoutes } from '../apiserver/routes/oauth.js';
import { vaultApi, vaultApiAddress } from '../apiserver/vault-api/index.js';
import { vaultRoutes } from '../apiserver/routes/vault.js';
import { vpcRoutes } from '../apiserver/routes/vpcs.js';
import type { Authenticator, RouteModule } from '../apiserver/routing/route.js';
import { platformControllers } from '../controllers/index.js';
import type { ControllerDefinition } from '../controllers/runtime/controller.js';
import type { ObjectStore } from '../controllers/runtime/object-store/types.js';
import { VaultEngine } from '../controllers/vaultcluster/engine.js';
import type { Database } from '../database/database.js';
import type { Logger } from '../observability/logger.js';
import { loadPlatformKey } from '../security/platform-key.js';
import type { Config } from './config.js';

/**
 * What the API and the controllers share in one process: the platform key and the vault engine
 * (one instance, so seal state is one).
 */
export interface PlatformServices {
  platformKey: Buffer;
  vault: VaultEngine;
  vaultApiAddress(namespace: string, name: string): string;
}

export async function platformServices(config: Config, database: Database): Promise<PlatformServices> {
  const platformKey = await loadPlatformKey(config);
  return {
    platformKey,
    // With PostgreSQL several processes serve one cluster: each must see it unsealed.
    vault: new VaultEngine({ database, platformKey, shareUnsealState: config.databaseUrl !== undefined }),
    vaultApiAddress: (_namespace, name) => vaultApiAddress(config.baseUrl, name),
  };
}

export function controllersOf(config: Config, services: PlatformServices): ControllerDefinition[] {
  return platformControllers({
    vpc: config.vpc,
    vault: services.vault,
    vaultApiAddress: services.vaultApiAddress,
  });
}

export interface PlatformApi {
  routes: RouteModule[];
  mounts: { path: string; router: Router }[];
  authenticator: Authenticator;
}

/**
 * Every route module of the REST API and the authenticator they share: the one list both the
 * embedded `serve` and the cluster `apiserver` serve, so the two modes cannot drift apart.
 */
export async function platformApi(deps: {
  config: Config;
  logger: Logger;
  database: Database;
  store: ObjectStore;
  services: PlatformServices;
}): Promise<PlatformApi> {
  const { config, logger, database, store, services } = deps;
  const accounts = await createAccounts({ database, config, logger, platformKey: services.platformKey });
  return {
    routes: [
      ...accounts.routes,
      oauthRoutes(accounts.deps),
      vpcRoutes({ store }),
      vaultRoutes({ engine: services.vault, apiAddress: services.vaultApiAddress }),
    ],
    mounts: [
      {
        path: '/vault/:clusterId',
        router: vaultApi({ engine: services.vault, store, logger, bodyLimitBytes: config.bodyLimitBytes }),
      },
    ],
    authenticator: accounts.authenticator,
  };
}
