import fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import path from 'node:path';
import { createApp } from '../apiserver/app.js';
import { targetOf } from '../apiserver/routing/route-paths.js';
import { startServer } from '../apiserver/server.js';
import type { Config } from '../config/index.js';
import type { ProcessConfig } from '../config/process.js';
import { KUBERNETES_API_KINDS } from '../control-plane/built-in-kinds.js';
import { openEmbeddedStore } from '../control-plane/embedded-store/index.js';
import { loadKinds } from '../crds/registry.js';
import { openDataPlane } from '../data-plane/data-plane.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';

/**
 * The control plane (CRs) and the data plane (records) live in two SQLite files. One file would
 * put two connections behind one write lock: a data-plane transaction spans awaits while holding
 * it, and a synchronous store write waiting on it would block the very event loop that has to
 * finish the transaction.
 */
export const controlPlanePath = (config: ProcessConfig) => path.join(config.dataDir, 'control-plane.db');
export const dataPlanePath = (config: ProcessConfig) => path.join(config.dataDir, 'data-plane.db');

export interface RunningPlatform {
  url: string;
  stop(): Promise<void>;
}

/** What the REST API's server answers while the platform is still starting: the probes. */
const ANSWERED_WHILE_STARTING = new Set(['/health', '/metrics']);

/**
 * The embedded mode: object store and data plane on SQLite, controllers, scheduler, the REST
 * facade and the Kubernetes API in this process.
 *
 * The REST API listens as soon as the data plane is open and answers `/health` and `/metrics`
 * from then on; every other request waits until the controllers have started and the whole API
 * is there, so no request sees a platform that has not yet taken up its resources again.
 */
export async function serveEmbedded(config: Config, logger: Logger): Promise<RunningPlatform> {
  const { dataDir } = config.process;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const metrics = createMetrics();
  const startedAt = new Date();

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

  const { http } = config;
  const probes = createApp({ http, logger, metrics, store, database, startedAt });
  let started: (restApi: RequestListener) => void = () => undefined;
  const whenStarted = new Promise<RequestListener>((resolve) => (started = resolve));
  let answer: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (ANSWERED_WHILE_STARTING.has(targetOf(req.url).path)) probes(req, res);
    else void whenStarted.then((restApi) => restApi(req, res));
  };
  const server = await startServer((req, res) => answer(req, res), {
    host: http.host,
    port: http.port,
    listMethod: true,
  });
  http.publicUrl.follow(server.url);

  let platform;
  try {
    const { startEmbeddedPlatform } = await import('./embedded-platform.js');
    platform = await startEmbeddedPlatform({ config, logger, metrics, store, database, server, startedAt });
  } catch (error) {
    await server.close();
    await database.close();
    await store.close();
    throw error;
  }
  answer = platform.restApi;
  started(platform.restApi);

  logger.info({ url: server.url, mode: 'embedded', dataDir }, `cloudplane serving on ${server.url}`);
  logger.info(
    { url: platform.kubernetesApiUrl, kubeconfig: platform.kubeconfig },
    `Kubernetes API on ${platform.kubernetesApiUrl}: KUBECONFIG=${platform.kubeconfig} kubectl api-resources`,
  );

  const running = platform;
  return {
    url: server.url,
    async stop() {
      await running.stop();
      await database.close();
      await store.close();
    },
  };
}
