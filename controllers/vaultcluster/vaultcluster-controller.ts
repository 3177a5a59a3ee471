import type { VaultCluster } from '../../crds/vault-cluster.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import type { ControllerDefinition, ReconcileContext, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { recordUsage } from '../runtime/usage-samples.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { desiredStatus, initialisationStep, type ClusterObservation } from './engine.js';
import { VAULT_ENGINE_VERSION, vaultClusterId, type VaultEngine } from '../../vault/vault-engine.js';

/** Held while the cluster's data-plane records exist; removed once they are destroyed. */
export const VAULT_DATA_FINALIZER = 'cloudplane.dev/vault-data';

export interface VaultClusterControllerOptions {
  engine: VaultEngine;
  /** Where hourly usage samples (secrets held) are written. */
  database: DataPlane;
  /** Where the cluster's Vault-compatible API answers. */
  apiAddress(namespace: string, name: string): string;
  /** How often usage counts and seal state are refreshed. Default 30 s. */
  refreshIntervalMs?: number;
}

/** What one reconcile of a vault cluster works with. */
interface VaultClusterRun {
  context: ReconcileContext;
  options: VaultClusterControllerOptions;
  namespace: string;
  name: string;
  /** The cluster's records in the data plane are kept under this id. */
  clusterId: string;
}

/** Destroys a deleted cluster's keys, secrets, tokens and audit log, then lets it go. */
async function destroyCluster(cluster: VaultCluster, run: VaultClusterRun): Promise<void> {
  const { context, options } = run;
  if (!holdsFinalizer(cluster, VAULT_DATA_FINALIZER)) return;
  await options.engine.destroy(run.clusterId);
  context.logger.info('vault cluster data destroyed');
  await removeFinalizer(context.store, VAULT_CLUSTER, cluster, VAULT_DATA_FINALIZER);
}

/**
 * Initialises a cluster that unseals itself, or refuses a spec it cannot serve; whether the
 * cluster is initialised now.
 */
async function initialise(cluster: VaultCluster, run: VaultClusterRun): Promise<boolean> {
  const { engine } = run.options;
  const initialized = await engine.isInitialized(run.clusterId);
  const step = initialisationStep(cluster.spec, initialized);
  if (step === undefined) return initialized;
  if ('refuse' in step) throw new TerminalError('InvalidSpec', step.refuse, 'error');
  await engine.initialize(run.clusterId, step.initialize);
  run.context.logger.info('vault cluster initialised with auto-unseal');
  return true;
}

/** Unseals an initialised cluster that unseals itself (start-up included) and counts what it holds. */
async function observe(initialized: boolean, run: VaultClusterRun): Promise<ClusterObservation> {
  if (!initialized) return { initialized, sealed: true, totalSecrets: 0, storageBytes: 0 };
  const handle = run.options.engine.forCluster(run.clusterId);
  const sealed = !(await handle.autoUnseal());
  return { initialized, sealed, ...(await handle.usage()) };
}

/** Records the hour's usage of an initialised cluster (the secrets it holds) and writes its status. */
async function reportObserved(
  cluster: VaultCluster,
  observation: ClusterObservation,
  run: VaultClusterRun,
): Promise<void> {
  const { context, options, namespace, name } = run;
  if (observation.initialized) {
    await recordUsage(
      options.database,
      [
        {
          organization: namespace,
          meter: 'vault.secret_hours',
          unit: 'secret-hour',
          resourceType: 'vault_cluster',
          resourceId: name,
          resourceName: cluster.spec?.name ?? name,
          quantity: observation.totalSecrets,
        },
      ],
      context.clock.now(),
    );
  }
  await writeStatusIfChanged(
    context.store,
    VAULT_CLUSTER,
    cluster,
    desiredStatus(cluster.status, observation, {
      generation: cluster.metadata.generation,
      version: VAULT_ENGINE_VERSION,
      apiAddress: options.apiAddress(namespace, name),
      now: context.clock.now(),
    }),
  );
}

/**
 * Reconciles VaultClusters: holds a finalizer so deleting one destroys its keys, secrets, tokens
 * and audit log, initialises clusters that unseal themselves, unseals them (start-up included),
 * and reports phase, seal state and usage.
 *
 * A VaultCluster applied with kubectl and without autoUnseal is never initialised here: its
 * unseal keys would have no one to receive them. It stays `sealed` with a Ready condition saying
 * to create it through the REST API, which returns the keys once.
 */
export function vaultClusterController(options: VaultClusterControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async (request, context) => {
    let cluster = context.cache.get<VaultCluster>(VAULT_CLUSTER, request.namespace, request.name);
    if (cluster === undefined) return;
    const { namespace = '', name } = request;
    const run: VaultClusterRun = {
      context,
      options,
      namespace,
      name,
      clusterId: vaultClusterId(namespace, name),
    };
    if (cluster.metadata.deletionTimestamp) return destroyCluster(cluster, run);
    cluster = await addFinalizer(context.store, VAULT_CLUSTER, cluster, VAULT_DATA_FINALIZER);
    const observation = await observe(await initialise(cluster, run), run);
    await reportObserved(cluster, observation, run);
    return { requeueAfterMs: options.refreshIntervalMs ?? 30_000 };
  };
  return { name: 'vaultcluster', for: VAULT_CLUSTER, reconcile };
}
