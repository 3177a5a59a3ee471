import type { Router } from 'express';
import { createAccounts } from '../accounts/index.js';
import {
  CODEHOST_WEBHOOK_PATH,
  codehostWebhookRouter,
} from '../apiserver/routes/integrations/codehost-webhooks.js';
import { integrationEventRoutes } from '../apiserver/routes/integrations/events.js';
import { integrationWebhookRoutes } from '../apiserver/routes/integrations/webhooks.js';
import { integrationRoutes } from '../apiserver/routes/integrations/integrations.js';
import { oauthRoutes } from '../apiserver/routes/accounts/oauth.js';
import { vaultRoutes } from '../apiserver/routes/vault/clusters.js';
import { vpcRoutes } from '../apiserver/routes/vpc/vpcs.js';
import type { RouteModule } from '../apiserver/routing/route.js';
import type { Authenticator } from '../accounts/principal.js';
import { vaultApi, vaultApiAddress } from '../apiserver/vault-api/index.js';
import { platformControllers } from '../controllers/index.js';
import { startDeliveryWorker, type DeliveryWorker } from '../integrations/events/delivery-worker.js';
import { DEFAULT_BACKOFF } from '../integrations/events/retry-schedule.js';
import { BackgroundRuns } from '../integrations/background-runs.js';
import { systemClock } from '../controllers/runtime/clock.js';
import type { ControllerDefinition } from '../controllers/runtime/controller.js';
import type { ObjectStore } from '../control-plane/types.js';
import { VaultEngine } from '../vault/vault-engine.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { Logger } from '../observability/logger.js';
import { loadPlatformKey } from '../security/platform-key.js';
import type { Config } from '../config/config.js';

/**
 * What the API and the controllers share in one process: the data plane, the platform key and the
 * vault engine (one instance, so seal state is one).
 */
export interface PlatformServices {
  database: DataPlane;
  platformKey: Buffer;
  vault: VaultEngine;
  vaultApiAddress(namespace: string, name: string): string;
}

export async function platformServices(config: Config, database: DataPlane): Promise<PlatformServices> {
  const platformKey = await loadPlatformKey(config);
  return {
    database,
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
    integrations: {
      database: services.database,
      platformKey: services.platformKey,
      config: config.integrations,
      now: () => new Date(),
    },
  });
}

/**
 * Sends recorded integration events with retries. Every replica may run one: events are claimed
 * atomically with a lease.
 */
export function startEventDelivery(
  config: Config,
  services: PlatformServices,
  store: ObjectStore,
  logger: Logger,
): DeliveryWorker {
  return startDeliveryWorker({
    database: services.database,
    store,
    platformKey: services.platformKey,
    logger,
    clock: systemClock,
    egress: { allowPrivate: config.integrations.allowPrivateEgress },
    endpoints: { pagerUrl: config.integrations.pagerUrl, monitorSites: config.integrations.monitorUrls },
    retry: { ...DEFAULT_BACKOFF, maxAttempts: config.integrations.eventMaxAttempts },
  });
}

export interface PlatformApi {
  /** The app's share of the API, as `createApp` takes it. */
  app: { routes: RouteModule[]; mounts: { path: string; router: Router }[]; authenticator: Authenticator };
  /** Integration tests and syncs still running after their 202; awaited on shutdown. */
  backgroundRuns: BackgroundRuns;
}

/**
 * Every route module of the REST API and the authenticator they share: the one list both the
 * embedded `serve` and the cluster `apiserver` serve, so the two modes cannot drift apart.
 */
export async function platformApi(deps: {
  config: Config;
  logger: Logger;
  store: ObjectStore;
  services: PlatformServices;
}): Promise<PlatformApi> {
  const { config, logger, store, services } = deps;
  const { database, platformKey } = services;
  const accounts = await createAccounts({ database, config, logger, platformKey });
  const backgroundRuns = new BackgroundRuns(logger);
  const app: PlatformApi['app'] = {
    routes: [
      ...accounts.routes,
      oauthRoutes(accounts.deps),
      vpcRoutes({ store }),
      vaultRoutes({ engine: services.vault, apiAddress: services.vaultApiAddress }),
      integrationRoutes({ store, platformKey, runs: backgroundRuns }),
      integrationEventRoutes,
      integrationWebhookRoutes({ platformKey }),
    ],
    mounts: [
      {
        path: '/vault/:clusterId',
        router: vaultApi({ engine: services.vault, store, logger, bodyLimitBytes: config.bodyLimitBytes }),
      },
      {
        path: CODEHOST_WEBHOOK_PATH,
        router: codehostWebhookRouter({
          store,
          database,
          platformKey,
          now: () => new Date(),
          bodyLimitBytes: config.bodyLimitBytes,
        }),
      },
    ],
    authenticator: accounts.authenticator,
  };
  return { app, backgroundRuns };
}
