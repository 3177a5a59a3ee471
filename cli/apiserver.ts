import { KubeConfig } from '@kubernetes/client-node';
import { NAMESPACE_KIND } from '../control-plane/built-in-kinds.js';
import { EVERY_KIND, type ApiPermission } from '../control-plane/api-permissions.js';
import { CachedReadStore } from '../control-plane/cached-read-store.js';
import { openKubernetesStore } from '../control-plane/kubernetes-store/index.js';
import type { ObjectStore } from '../control-plane/types.js';
import { GROUP, type KindDescriptor } from '../control-plane/kind-descriptor.js';
import { loadKinds } from '../crds/registry.js';
import { openDataPlane, type DataPlane } from '../data-plane/data-plane.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { ConfigError } from '../config/env.js';
import type { Config } from '../config/index.js';
import { assemblePlatform, serveRestApi } from './platform.js';
import { dataPlanePath, type RunningPlatform } from './serve.js';

/**
 * What the `apiserver` process asks of the kube-apiserver. Route handlers get the whole
 * `ObjectStore` on the cloudplane kinds; the facade never writes status, so it is granted none.
 */
export const APISERVER_PERMISSIONS: readonly ApiPermission[] = [
  {
    apiGroup: GROUP,
    resources: [EVERY_KIND],
    verbs: {
      get: 'ObjectStore.get: reads of kinds outside the cache, and the cache falling back after a slow catch-up',
      list: 'CachedReadStore: an informer lists each kind to fill the cache reads are served from',
      watch: 'CachedReadStore: an informer watches each kind to keep that cache current',
      create: 'ObjectStore.create: route handlers create resources',
      update: 'ObjectStore.update: route handlers replace a resource’s spec and metadata',
      patch: 'ObjectStore.patch: route handlers change part of a resource',
      delete: 'ObjectStore.delete: route handlers delete resources',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['namespaces'],
    verbs: {
      create: 'ensureTenantNamespace: an organization’s namespace is made before its first resource',
    },
    scope: 'cluster',
  },
];

/** The control plane and data plane of cluster mode, opened and checked. */
export interface ClusterDependencies {
  store: ObjectStore;
  database: DataPlane;
  /** What the store reaches the cluster with; the workload runtime reads pod logs with it. */
  kubeConfig: KubeConfig;
}

/**
 * Opens the Kubernetes store (kubeconfig from `KUBECONFIG`, `~/.kube/config` or the pod's service
 * account) serving the cloudplane kinds plus `extraKinds`, checks the cluster answers, and opens
 * PostgreSQL with migrations applied. Throws `ConfigError` without `DATABASE_URL`: cluster mode
 * keeps its records in PostgreSQL, never in a pod's filesystem.
 */
export async function openClusterDependencies(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  extraKinds: KindDescriptor[] = [],
): Promise<ClusterDependencies> {
  const { databaseUrl } = config.process;
  if (!databaseUrl) {
    throw new ConfigError('DATABASE_URL', 'a postgres:// URL in cluster mode', '');
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const store = openKubernetesStore({ kubeConfig, kinds: [...loadKinds(), ...extraKinds], logger });
  try {
    await store.ping();
    logger.info({ server: kubeConfig.getCurrentCluster()?.server }, 'Kubernetes API reachable');
    const database = await openDataPlane({
      url: databaseUrl,
      sqlitePath: dataPlanePath(config.process),
      logger,
      metrics,
    });
    return { store, database, kubeConfig };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * `cloudplane apiserver`: the REST facade over the cluster and PostgreSQL. It keeps no state of
 * its own beyond caches, so any number of replicas serve behind one Service: reads of the
 * cloudplane kinds come from informer caches, writes go to the kube-apiserver.
 */
export async function serveApiserver(config: Config, logger: Logger): Promise<RunningPlatform> {
  const metrics = createMetrics();
  const cluster = await openClusterDependencies(config, logger, metrics, [NAMESPACE_KIND]);
  const { database } = cluster;
  const store = new CachedReadStore(cluster.store, { kinds: loadKinds(), logger });
  try {
    await store.synced();
    const platform = await assemblePlatform({ config, logger, metrics, store, database });
    const { server, eventStream } = await serveRestApi(platform, config.http);
    logger.info(
      { url: server.url, mode: 'cluster', component: 'apiserver' },
      `cloudplane API serving on ${server.url}`,
    );
    return {
      url: server.url,
      async stop() {
        // Stream sockets outlive the server's own shutdown: they go first.
        await eventStream.close();
        await server.close();
        await platform.idle();
        await platform.close();
        await database.close();
        await store.close();
      },
    };
  } catch (error) {
    await database.close();
    await store.close();
    throw error;
  }
}
