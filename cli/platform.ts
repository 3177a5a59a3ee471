/**
 * The platform assembled from its parts: the one place that says which services, route modules,
 * mounts and controllers exist. `serve`, `apiserver` and `operator` build on it, and so do the
 * tests, so what a test exercises is what a process runs.
 */
import type http from 'node:http';
import type { RequestListener } from 'node:http';
import { createAccounts, type Accounts } from '../accounts/index.js';
import {
  startOrganizationDeletion,
  type OrganizationDeletionWorker,
} from '../accounts/organization-deletion.js';
import type { Mailer } from '../accounts/mailer.js';
import { createOAuthProviders } from '../accounts/oauth/providers.js';
import type { ScryptCost } from '../accounts/passwords.js';
import type { Authenticator } from '../accounts/principal.js';
import { createApp } from '../apiserver/app.js';
import { startServer } from '../apiserver/server.js';
import type { HttpConfig } from '../config/http.js';
import { defaultConsoleDirectory } from '../apiserver/console-assets.js';
import {
  CODEHOST_WEBHOOK_PATH,
  codehostWebhookRouter,
  type CodehostDelivery,
} from '../apiserver/routes/integrations/codehost-webhooks.js';
import { attachEventStream, type EventStream } from '../apiserver/event-stream/index.js';
import { registerConsumerGroupLagGauge } from '../apiserver/routes/streaming/lag-gauge.js';
import { ROUTE_AREAS, type RouteAreaServices } from '../apiserver/routes/index.js';
import type { RouteModule } from '../apiserver/routing/route.js';
import { SCHEMA_REGISTRY_PATH, schemaRegistryApi } from '../apiserver/schema-registry/index.js';
import { CONNECT_PATH, connectApi } from '../apiserver/connect/index.js';
import { ConnectService } from '../connect/index.js';
import { vaultApi, vaultApiAddress } from '../apiserver/vault-api/index.js';
import type { Config } from '../config/index.js';
import type { ObjectStore } from '../control-plane/types.js';
import { platformControllers } from '../controllers/index.js';
import { clusterWorkload } from '../controllers/streaming/index.js';
import { systemClock, type Clock } from '../observability/clock.js';
import type { ControllerDefinition } from '../controllers/runtime/controller.js';
import { StoreEventRecorder } from '../controllers/runtime/event-recorder.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { KINDS } from '../crds/index.js';
import { BackgroundRuns } from '../integrations/background-runs.js';
import { startDeliveryWorker, type DeliveryWorker } from '../integrations/events/delivery-worker.js';
import { startEventBridge, type EventBridge } from '../integrations/events/event-bridge.js';
import { DEFAULT_BACKOFF } from '../integrations/events/retry-schedule.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { loadPlatformKey } from '../security/platform-key.js';
import { VaultEngine } from '../vault/vault-engine.js';
import { createLocalRuntime } from '../workloads/local/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { WorkloadsConfig } from '../config/workloads.js';
import type { WorkloadRuntime } from '../workloads/runtime.js';

export interface PlatformDependencies {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  store: ObjectStore;
  database: DataPlane;
  /** Defaults to the system clock; tests move a fake one. */
  clock?: Clock;
  /** Cluster mode: how the kubernetes workload runtime reaches the cluster beyond the store (pod logs). */
  kubeConfig?: KubeConfig;
  /** Defaults to the key `config.platformKey` names (generated into the data dir when embedded). */
  platformKey?: Buffer;
  /** The scrypt cost of new password hashes; defaults to OWASP's (tests lower it). */
  passwordCost?: ScryptCost;
  /** Defaults to SMTP or the outbox directory, as configured. */
  mailer?: Mailer;
  /** The moment `/health` counts uptime from; defaults to the app's creation. */
  startedAt?: Date;
  /** Route modules served beside the platform's, for tests of the framework itself. */
  extraRoutes?: readonly RouteModule[];
  /** What an accepted code-host delivery does beyond its recording; a throw makes the code host retry. */
  onCodehostDelivery?: (delivery: CodehostDelivery) => Promise<void>;
}

/** How often the leader looks for organizations to delete, besides when one is asked for. */
const ORGANIZATION_DELETION_INTERVAL_MS = 10_000;

export interface Platform {
  /**
   * The REST facade with every area, the Vault-compatible API and the inbound webhooks, on
   * `options.store` when given (the store the API process reads and writes) or the platform's.
   */
  restApi(options?: { store?: ObjectStore }): RequestListener;
  /** Every controller the platform runs, for a `ControllerRunner`. */
  controllers: ControllerDefinition[];
  /** The authenticator of the REST API, which the embedded Kubernetes API also accepts. */
  authenticator: Authenticator;
  accounts: Accounts;
  vault: VaultEngine;
  platformKey: Buffer;
  /** Sends recorded integration events with retries; every replica may run one (events are leased). */
  startEventDelivery(): DeliveryWorker;
  /** Publishes resource changes as integration events; only one process (the leader) may. */
  startEventBridge(): EventBridge;
  /** Drives organizations marked for deletion to the end; only one process (the leader) may. */
  startOrganizationDeletion(): OrganizationDeletionWorker;
  /**
   * Runs the streaming clusters' connector tasks, or in cluster mode brings the runtime's Connect
   * workers to the connectors; only one process (the leader) may.
   */
  startConnectWorker(): { stop(): Promise<void> };
  /** Waits for the work the API started and answered 202 for (integration tests and syncs). */
  idle(): Promise<void>;
  /** Where managed data services run. */
  workloads: WorkloadRuntime;
  /** Serves `GET /v1/events/stream` (WebSocket upgrades) on the REST API's server. */
  attachEventStream(server: http.Server): Promise<EventStream>;
  /** Stops what the platform runs outside its process (private servers, supervised processes). */
  close(): Promise<void>;
}

/**
 * The runtime managed data services run on: this machine, or the cluster the store reaches (whose
 * store must then serve `KUBERNETES_WORKLOAD_KINDS`).
 */
async function workloadRuntime(
  config: WorkloadsConfig,
  store: ObjectStore,
  logger: Logger,
  kubeConfig: KubeConfig | undefined,
): Promise<WorkloadRuntime> {
  if (config.runtime === 'local') return createLocalRuntime({ config, logger });
  // Loaded only in cluster mode: the Kubernetes runtime and its clients are a good part of start-up.
  const { createKubernetesRuntime } = await import('../workloads/kubernetes/index.js');
  const { kubernetes } = config;
  return createKubernetesRuntime({
    store,
    logger,
    helm: {
      helmBinary: config.helmBinary,
      chartsDir: config.chartsDir,
      chartRepositories: config.chartRepositories,
    },
    ...(kubeConfig ? { kubeConfig } : {}),
    storageClass: kubernetes.shareStorageClass,
    images: kubernetes.images,
    postgresInstances: kubernetes.postgresInstances,
    backupStorage: { claimSize: kubernetes.backupClaimSize, storageClass: kubernetes.backupStorageClass },
  });
}

/** Builds every service, route module and controller of the platform on a store and a data plane. */
export async function assemblePlatform(deps: PlatformDependencies): Promise<Platform> {
  const { config, logger, metrics, store, database } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const platformKey = deps.platformKey ?? (await loadPlatformKey(config.platformKey));
  const publicUrl = config.http.publicUrl;

  const accounts = await createAccounts({
    database,
    config: config.accounts,
    mail: config.mail,
    publicUrl,
    logger,
    now,
    platformKey,
    passwordCost: deps.passwordCost,
    mailer: deps.mailer,
  });
  // With PostgreSQL several processes serve one cluster: each must see it unsealed.
  const vault = new VaultEngine({
    database,
    platformKey,
    now,
    shareUnsealState: config.process.databaseUrl !== undefined,
  });
  const apiAddress = (_namespace: string, name: string) => vaultApiAddress(publicUrl.href, name);
  const integrationRuns = new BackgroundRuns(logger);
  const workloads = await workloadRuntime(
    config.workloads,
    store,
    logger.child({ component: 'workloads' }),
    deps.kubeConfig,
  );
  // Every process serves the Connect API; only the one running the controllers runs the tasks (or,
  // in cluster mode, reconciles the KafkaConnectors that run them).
  const connect = new ConnectService({
    database,
    store,
    streaming: workloads.streaming,
    ...(workloads.connect ? { connectRuntime: workloads.connect } : {}),
    family: { clusterWorkload },
    platformKey,
    logger: logger.child({ component: 'connect' }),
    now,
    events: new StoreEventRecorder({
      store,
      clock,
      logger: logger.child({ component: 'connect' }),
      component: 'cloudplane-connect',
    }),
  });
  // The API marks an organization for deletion; the worker of this process, when it runs one,
  // starts on it at once instead of at its next pass.
  let deletionWorker: OrganizationDeletionWorker | undefined;

  const services = {
    accounts: accounts.deps,
    mailer: accounts.mailer,
    oauth: { providers: createOAuthProviders(config.oauth), redirectUris: config.oauth.redirectUris },
    vault,
    vaultApiAddress: (name: string) => vaultApiAddress(publicUrl.href, name),
    vpcConfig: config.vpc,
    integrations: config.integrations,
    integrationRuns,
    platformKey,
    publicUrl,
    organizationDeletion: { kick: () => deletionWorker?.kick() },
    quotas: config.quotas,
    workloadsConfig: config.workloads,
    usageConfig: config.jobs.usage,
    platformAdmins: config.accounts.platformAdmins,
    streamingRuntime: workloads.streaming,
  } satisfies RouteAreaServices;
  registerConsumerGroupLagGauge(metrics.registry, { store, runtime: workloads.streaming, logger });

  const restApi = ({ store: apiStore = store }: { store?: ObjectStore } = {}) =>
    createApp({
      http: config.http,
      logger,
      metrics,
      store: apiStore,
      database,
      now,
      startedAt: deps.startedAt,
      consoleDirectory: defaultConsoleDirectory(),
      services,
      routes: [...ROUTE_AREAS, ...(deps.extraRoutes ?? [])],
      mounts: [
        {
          path: '/vault/:clusterId',
          router: vaultApi({
            engine: vault,
            store: apiStore,
            logger,
            bodyLimitBytes: config.http.bodyLimitBytes,
          }),
        },
        {
          path: SCHEMA_REGISTRY_PATH,
          router: schemaRegistryApi({
            store: apiStore,
            database,
            authenticator: accounts.authenticator,
            logger,
            now,
            bodyLimitBytes: config.http.bodyLimitBytes,
          }),
        },
        {
          path: CONNECT_PATH,
          router: connectApi({
            connect,
            store: apiStore,
            database,
            authenticator: accounts.authenticator,
            logger,
            bodyLimitBytes: config.http.bodyLimitBytes,
          }),
        },
        {
          path: CODEHOST_WEBHOOK_PATH,
          router: codehostWebhookRouter({
            store: apiStore,
            database,
            platformKey,
            now,
            bodyLimitBytes: config.http.bodyLimitBytes,
            onDelivery: deps.onCodehostDelivery,
          }),
        },
      ],
      authenticator: accounts.authenticator,
    });

  const controllers = platformControllers({
    database,
    vpc: config.vpc,
    vault,
    vaultApiAddress: apiAddress,
    integrations: { database, platformKey, config: config.integrations, now },
    workloads,
    quotas: config.quotas,
    streaming: config.streaming,
    platformKey,
  });

  return {
    restApi,
    controllers,
    authenticator: accounts.authenticator,
    accounts,
    vault,
    platformKey,
    startEventDelivery: () =>
      startDeliveryWorker({
        database,
        store,
        platformKey,
        logger,
        clock,
        egress: { allowPrivate: config.integrations.allowPrivateEgress },
        endpoints: { pagerUrl: config.integrations.pagerUrl, monitorSites: config.integrations.monitorUrls },
        retry: { ...DEFAULT_BACKOFF, maxAttempts: config.integrations.eventMaxAttempts },
      }),
    startEventBridge: () => startEventBridge({ database, store, now, logger }),
    startConnectWorker: () => connect.startWorker(),
    startOrganizationDeletion: () =>
      (deletionWorker = startOrganizationDeletion(
        { database, store, kinds: KINDS, logger, now },
        { intervalMs: ORGANIZATION_DELETION_INTERVAL_MS, followUpMs: 500 },
      )),
    idle: () => integrationRuns.idle(),
    workloads,
    attachEventStream: (server) =>
      attachEventStream(server, { database, authenticator: accounts.authenticator, logger, now }),
    close: async () => {
      await connect.close();
      await workloads.close();
    },
  };
}

/**
 * The REST API on its configured address, its public URL following the port it got, and the
 * event stream on the same server: what both serving modes put in front of the platform.
 */
export async function serveRestApi(platform: Platform, http: HttpConfig) {
  const server = await startServer(platform.restApi(), {
    host: http.host,
    port: http.port,
    listMethod: true,
  });
  http.publicUrl.follow(server.url);
  const eventStream = await platform.attachEventStream(server.server);
  return { server, eventStream };
}
