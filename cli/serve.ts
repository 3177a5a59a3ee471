import fs from 'node:fs';
import path from 'node:path';
import { organizationNamespace } from '../accounts/organizations.js';
import { createApp } from '../apiserver/app.js';
import {
  combineKubeAuthenticators,
  platformKubeAuthenticator,
  startupTokenAuthenticator,
} from '../control-plane/kubernetes-api/authentication.js';
import { KUBERNETES_API_KINDS } from '../control-plane/built-in-kinds.js';
import { generateStartupToken, writeKubeconfig } from '../control-plane/kubernetes-api/kubeconfig.js';
import { kubernetesApiApp } from '../control-plane/kubernetes-api/kubernetes-app.js';
import { loadServingCertificate } from '../control-plane/kubernetes-api/serving-certificate.js';
import { startServer } from '../apiserver/server.js';
import { startEventBridge } from '../integrations/events/event-bridge.js';
import { ControllerRunner } from '../controllers/runtime/controller-runner.js';
import { openEmbeddedStore } from '../control-plane/embedded-store/sqlite-store.js';
import { loadKinds } from '../crds/registry.js';
import { openDataPlane } from '../data-plane/data-plane.js';
import { JOBS } from '../jobs/index.js';
import { createScheduler } from '../jobs/scheduler.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import type { Config } from '../config/config.js';
import { controllersOf, platformApi, platformServices, startEventDelivery } from './platform.js';

/**
 * The control plane (CRs) and the data plane (records) live in two SQLite files. One file would
 * put two connections behind one write lock: a data-plane transaction spans awaits while holding
 * it, and a synchronous store write waiting on it would block the very event loop that has to
 * finish the transaction.
 */
export const controlPlanePath = (config: Config) => path.join(config.dataDir, 'control-plane.db');
export const dataPlanePath = (config: Config) => path.join(config.dataDir, 'data-plane.db');
export const kubeconfigPath = (config: Config) => path.join(config.dataDir, 'kubeconfig');

export interface RunningPlatform {
  url: string;
  stop(): Promise<void>;
}

/**
 * The embedded mode: object store and data plane on SQLite, controllers, scheduler, the REST
 * facade and the Kubernetes API in this process.
 */
export async function serveEmbedded(config: Config, logger: Logger): Promise<RunningPlatform> {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const metrics = createMetrics();

  logger.info({ dataDir: config.dataDir }, 'opening the embedded store');
  const store = openEmbeddedStore({
    path: controlPlanePath(config),
    kinds: [...loadKinds(), ...KUBERNETES_API_KINDS],
    logger,
  });
  const database = await openDataPlane({
    url: config.databaseUrl,
    sqlitePath: dataPlanePath(config),
    logger,
    metrics,
  });
  logger.info({ dialect: database.dialect }, 'data plane ready, migrations applied');

  const controllers = new ControllerRunner({ store, database, logger, metrics });
  const services = await platformServices(config, database);
  for (const controller of controllersOf(config, services)) controllers.register(controller);
  await controllers.start();

  const scheduler = createScheduler({ jobs: JOBS, deps: { database, config, logger, metrics } });
  scheduler.start();
  const eventDelivery = startEventDelivery(config, services, store, logger);
  const eventBridge = startEventBridge({ database, store, now: () => new Date(), logger });

  const api = await platformApi({ config, logger, store, services });
  const app = createApp({ config, logger, metrics, store, database, ...api.app });
  const server = await startServer(app, { host: config.host, port: config.port });
  // Links and vault addresses are built when asked for, so they follow the port actually bound.
  if (!config.baseUrlConfigured) config.baseUrl = server.url;

  const startupToken = generateStartupToken();
  const certificate = loadServingCertificate(config.dataDir, ['127.0.0.1', 'localhost', config.host]);
  const kubernetesApi = await startServer(
    kubernetesApiApp({
      store,
      logger,
      authenticate: combineKubeAuthenticators(
        startupTokenAuthenticator(startupToken),
        platformKubeAuthenticator(api.app.authenticator, organizationNamespace),
      ),
    }),
    { host: config.host, port: config.kubeApiPort, tls: certificate },
  );
  const kubeconfig = kubeconfigPath(config);
  writeKubeconfig(kubeconfig, {
    server: kubernetesApi.url,
    token: startupToken,
    certificateAuthority: certificate.cert,
  });

  logger.info(
    { url: server.url, mode: 'embedded', dataDir: config.dataDir },
    `cloudplane serving on ${server.url}`,
  );
  logger.info(
    { url: kubernetesApi.url, kubeconfig },
    `Kubernetes API on ${kubernetesApi.url}: KUBECONFIG=${kubeconfig} kubectl api-resources`,
  );

  return {
    url: server.url,
    async stop() {
      await Promise.all([server.close(), kubernetesApi.close()]);
      await api.backgroundRuns.idle();
      await eventBridge.stop();
      await eventDelivery.stop();
      await scheduler.stop();
      await controllers.stop();
      await database.close();
      await store.close();
    },
  };
}
