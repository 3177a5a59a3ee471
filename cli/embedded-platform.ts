import path from 'node:path';
import type { RequestListener } from 'node:http';
import { platformKubeAuthenticator } from '../accounts/kube-identity.js';
import { organizationNamespace } from '../accounts/organizations.js';
import { startServer, type RunningServer } from '../apiserver/server.js';
import type { Config } from '../config/index.js';
import type { ProcessConfig } from '../config/process.js';
import type { EmbeddedStore } from '../control-plane/embedded-store/index.js';
import {
  combineKubeAuthenticators,
  generateStartupToken,
  kubernetesApiApp,
  loadServingCertificate,
  startupTokenAuthenticator,
  writeKubeconfig,
} from '../control-plane/kubernetes-api/index.js';
import { ControllerRunner } from '../controllers/runtime/controller-runner.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { deriveKey } from '../security/key-derivation.js';
import { JOBS } from '../jobs/index.js';
import { createScheduler } from '../jobs/scheduler.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { jobDependencies } from './job-dependencies.js';
import { assemblePlatform } from './platform.js';

export const kubeconfigPath = (config: ProcessConfig) => path.join(config.dataDir, 'kubeconfig');

export interface EmbeddedPlatformDependencies {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  store: EmbeddedStore;
  database: DataPlane;
  /** The REST API's server, already listening: the event stream is served on it. */
  server: RunningServer;
  /** The moment `/health` counts uptime from. */
  startedAt: Date;
}

export interface EmbeddedPlatform {
  /** The REST facade with every area, for the listening server to hand requests to. */
  restApi: RequestListener;
  kubernetesApiUrl: string;
  kubeconfig: string;
  /** Stops everything started here and the REST API's server, in order. */
  stop(): Promise<void>;
}

/**
 * What the embedded mode runs beyond the store and the data plane: the platform's services and
 * controllers, the scheduler and the background workers, and the Kubernetes API. A module of its
 * own, loaded once the REST API's server is listening, since loading it is most of start-up.
 */
export async function startEmbeddedPlatform(deps: EmbeddedPlatformDependencies): Promise<EmbeddedPlatform> {
  const { config, logger, metrics, store, database, server, startedAt } = deps;
  const platform = await assemblePlatform({ config, logger, metrics, store, database, startedAt });
  const controllers = new ControllerRunner({ store, logger, metrics });
  for (const controller of platform.controllers) controllers.register(controller);
  await controllers.start();

  const scheduler = createScheduler({
    jobs: JOBS,
    deps: jobDependencies(config, { database, logger, metrics, store }),
  });
  scheduler.start();
  const eventDelivery = platform.startEventDelivery();
  const eventBridge = platform.startEventBridge();
  const organizationDeletion = platform.startOrganizationDeletion();
  const connectWorker = platform.startConnectWorker();
  const restApi = platform.restApi();
  const eventStream = await platform.attachEventStream(server.server);

  const { http } = config;
  const startupToken = generateStartupToken();
  const certificate = loadServingCertificate(config.process.dataDir, ['127.0.0.1', 'localhost', http.host]);
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

  return {
    restApi,
    kubernetesApiUrl: kubernetesApi.url,
    kubeconfig,
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
    },
  };
}
