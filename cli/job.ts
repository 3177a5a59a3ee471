import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../config/index.js';
import { openEmbeddedStore } from '../control-plane/embedded-store/index.js';
import { openKubernetesStore } from '../control-plane/kubernetes-store/index.js';
import type { ObjectStore } from '../control-plane/types.js';
import { loadKinds } from '../crds/registry.js';
import { openDataPlane } from '../data-plane/data-plane.js';
import { JOBS } from '../jobs/index.js';
import { runJobByName } from '../jobs/scheduler.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { jobDependencies } from './job-dependencies.js';
import { controlPlanePath, dataPlanePath } from './serve.js';

function kubeconfigAvailable(): boolean {
  return (
    Boolean(process.env.KUBECONFIG) ||
    Boolean(process.env.KUBERNETES_SERVICE_HOST) ||
    fs.existsSync(path.join(os.homedir(), '.kube', 'config'))
  );
}

/**
 * The control plane, when this process can reach one: the embedded store `serve` keeps beside the
 * data plane, or the cluster the kubeconfig names. A CronJob without either runs without it, and
 * the jobs skip (and report) what needs the objects.
 */
async function openControlPlane(config: Config, logger: Logger): Promise<ObjectStore | undefined> {
  if (!config.process.databaseUrl) {
    const file = controlPlanePath(config.process);
    if (!fs.existsSync(file)) return undefined;
    return openEmbeddedStore({ path: file, kinds: loadKinds(), logger });
  }
  if (!kubeconfigAvailable()) return undefined;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const store = openKubernetesStore({ kubeConfig, kinds: loadKinds(), logger });
  try {
    await store.ping();
    return store;
  } catch (error) {
    logger.warn({ err: error }, 'Kubernetes API not reachable; running without the control plane');
    await store.close();
    return undefined;
  }
}

/** `cloudplane job <name>`: one run, recorded like a scheduled one; the exit code tells the CronJob. */
export async function runJobCommand(
  name: string | undefined,
  config: Config,
  logger: Logger,
): Promise<number> {
  if (!name) {
    process.stderr.write(`cloudplane job: name a job: ${JOBS.map((job) => job.name).join(', ')}\n`);
    return 2;
  }
  const { databaseUrl, dataDir } = config.process;
  if (!databaseUrl) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const metrics = createMetrics({ processMetrics: false });
  const database = await openDataPlane({
    url: databaseUrl,
    sqlitePath: dataPlanePath(config.process),
    logger,
    metrics,
  });
  const store = await openControlPlane(config, logger).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  try {
    const run = await runJobByName(name, jobDependencies(config, { database, logger, metrics, store }));
    process.stdout.write(`${JSON.stringify(run)}\n`);
    return run.outcome === 'succeeded' ? 0 : 1;
  } finally {
    await store?.close();
    await database.close();
  }
}
