import fs from 'node:fs';
import path from 'node:path';
import { platformKubeAuthenticator } from '../accounts/kube-identity.js';
import { organizationNamespace } from '../accounts/organizations.js';
import { startServer } from '../apiserver/server.js';
import type { Config } from '../config/index.js';
import type { ProcessConfig } from '../config/process.js';
import { KUBERNETES_API_KINDS } from '../control-plane/built-in-kinds.js';
import { openEmbeddedStore } from '../control-plane/embedded-store/index.js';
import {
  combineKubeAuthenticators,
  generateStartupToken,
  kubernetesApiApp,
  loadServingCertificate,
  startupTokenAuthenticator,
  writeKubeconfig,
} from '../control-plane/kubernetes-api/index.js';
import { ControllerRunner } from '../controllers/runtime/controller-runner.js';
import { loadKinds } from '../crds/registry.js';
import { deriveKey } from '../security/key-derivation.js';
import { openDataPlane } from '../data-plane/data-plane.js';
import { JOBS } from '../jobs/index.js';
import { createScheduler } from '../jobs/scheduler.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { assemblePlatform, serveRestApi } from './platform.js';

/**
 * The control plane (CRs) and the data plane (records) live in two SQLite files. One file would
 * put two connections behind one write lock: a data-plane transaction spans awaits while holding
 * it, and a synchronous store write waiting on it would block the very event loop that has to
 * finish the transaction.
 */
export const controlPlanePath = (config: ProcessConfig) => path.join(config.dataDir, 'control-plane.db');
export const dataPlanePath = (config: ProcessConfig) => path.join(config.dataDir, 'data-plane.db');
export const kubeconfigPath = (config: ProcessConfig) => path.join(config.dataDir, 'kubeconfig');

export interface RunningPlatform {
  url: string;
  stop(): Promise<void>;
}

/**
 * The embedded mode: object store and data plane on SQLite, controllers, scheduler, the REST
 * facade and the Kubernetes API in this process.
 */
export async function serveEmbedded(config: Config, logger: Logger): Promise<RunningPlatform> {
  const { dataDir } = config.process;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const metrics = createMetrics();

  logger.info({ dataDir }, 'opening the embedded store');
  const store = openEmbeddedStore({
    path: controlPlanePath(config.process),
    kinds: [...loadKinds(), ...KUBERNETES_API_KINDS],
    logger,
  });
  const database = await openDataPlane({
    url: config.process.databaseUrl,
    sqlitePath: dataPlanePath(config.process),
    logger,
    metrics,
  });
  logger.info({ dialect: database.dialect }, 'data plane ready, migrations applied');

  const platform = await assemblePlatform({ config, logger, metrics, store, database });
  const controllers = new ControllerRunner({ store, logger, metrics });
  for (const controller of platform.controllers) controllers.register(controller);
  await controllers.start();

  const scheduler = createScheduler({
    jobs: JOBS,
    deps: {
      database,
      config: config.jobs,
      logger,
      metrics,
      store,
      workloadsDir: config.workloads.runtime === 'local' ? config.workloads.dir : undefined,
    },
  });
  scheduler.start();
  const eventDelivery = platform.startEventDelivery();
  const eventBridge = platform.startEventBridge();
  const organizationDeletion = platform.startOrganizationDeletion();
  const connectWorker = platform.startConnectWorker();

  const { http } = config;
  const { server, eventStream } = await serveRestApi(platform, http);

  const startupToken = generateStartupToken();
  const certificate = loadServingCertificate(dataDir, ['127.0.0.1', 'localhost', http.host]);
  const kubernetesApi = await startServer(
    kubernetesApiApp({
      store,
      logger,
      authenticate: combineKubeAuthenticators(
        startupTokenAuthenticator(startupToken),
        platformKubeAuthenticator(platform.authenticator, organizationNamespace),
      ),
      // Derived, so ServiceAccount tokens survive a restart.
      tokenSigningKey: deriveKey(platform.platformKey, 'kubernetes-api:service-account-tokens'),
    }),
    { host: http.host, port: config.process.kubeApiPort, tls: certificate },
  );
  const kubeconfig = kubeconfigPath(config.process);
  writeKubeconfig(kubeconfig, {
    server: kubernetesApi.url,
    token: startupToken,
    certificateAuthority: certificate.cert,
  });

  logger.info({ url: server.url, mode: 'embedded', dataDir }, `cloudplane serving on ${server.url}`);
  logger.info(
    { url: kubernetesApi.url, kubeconfig },
    `Kubernetes API on ${kubernetesApi.url}: KUBECONFIG=${kubeconfig} kubectl api-resources`,
  );

  return {
    url: server.url,
    async stop() {
      // Stream sockets outlive the server's own shutdown: they go first.
      await eventStream.close();
      await Promise.all([server.close(), kubernetesApi.close()]);
      await platform.idle();
      await eventBridge.stop();
      await organizationDeletion.stop();
      await connectWorker.stop();
      await eventDelivery.stop();
      await scheduler.stop();
      await controllers.stop();
      await platform.close();
      await database.close();
      await store.close();
    },
  };
}
