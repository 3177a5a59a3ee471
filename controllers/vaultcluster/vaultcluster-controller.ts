import type { VaultCluster } from '../../crds/vault-cluster.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { recordUsage } from '../runtime/usage-samples.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { DEFAULT_SHARES, DEFAULT_THRESHOLD, desiredStatus, specProblem } from './engine.js';
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
  const { engine } = options;
  const reconcile: Reconciler = async ({ namespace, name }, { store, cache, clock, logger }) => {
    let cluster = cache.get<VaultCluster>(VAULT_CLUSTER, namespace, name);
    if (cluster === undefined) return;
    const clusterId = vaultClusterId(namespace ?? '', name);
    const finalizers = cluster.metadata.finalizers ?? [];
    if (cluster.metadata.deletionTimestamp) {
      if (!finalizers.includes(VAULT_DATA_FINALIZER)) return;
      await engine.destroy(clusterId);
      logger.info('vault cluster data destroyed');
      await store.update(VAULT_CLUSTER, {
        ...cluster,
        metadata: {
          ...cluster.metadata,
          finalizers: finalizers.filter((entry) => entry !== VAULT_DATA_FINALIZER),
        },
      });
      return;
    }
    if (!finalizers.includes(VAULT_DATA_FINALIZER)) {
      cluster = await store.update(VAULT_CLUSTER, {
        ...cluster,
        metadata: { ...cluster.metadata, finalizers: [...finalizers, VAULT_DATA_FINALIZER] },
      });
    }
    const problem = specProblem(cluster.spec);
    let initialized = await engine.isInitialized(clusterId);
    if (problem && !initialized) throw new TerminalError('InvalidSpec', problem, 'error');
    const spec = cluster.spec!;
    if (!initialized && spec.autoUnseal) {
      await engine.initialize(clusterId, {
        shares: spec.shares ?? DEFAULT_SHARES,
        threshold: spec.threshold ?? DEFAULT_THRESHOLD,
        autoUnseal: true,
        defaultLeaseTtlSeconds: spec.settings?.defaultLeaseTtlSeconds,
        maxLeaseTtlSeconds: spec.settings?.maxLeaseTtlSeconds,
      });
      logger.info('vault cluster initialised with auto-unseal');
      initialized = true;
    }
    const handle = engine.forCluster(clusterId);
    const sealed = initialized ? !(await handle.autoUnseal()) : true;
    const usage = initialized ? await handle.usage() : { totalSecrets: 0, storageBytes: 0 };
    if (initialized) {
      await recordUsage(
        options.database,
        [
          {
            organization: namespace ?? '',
            meter: 'vault.secret_hours',
            unit: 'secret-hour',
            resourceType: 'vault_cluster',
            resourceId: name,
            resourceName: cluster.spec?.name ?? name,
            quantity: usage.totalSecrets,
          },
        ],
        clock.now(),
      );
    }
    await writeStatusIfChanged(
      store,
      VAULT_CLUSTER,
      cluster,
      desiredStatus(
        cluster.status,
        { initialized, sealed, ...usage },
        {
          generation: cluster.metadata.generation,
          version: VAULT_ENGINE_VERSION,
          apiAddress: options.apiAddress(namespace ?? '', name),
          now: clock.now(),
        },
      ),
    );
    return { requeueAfterMs: options.refreshIntervalMs ?? 30_000 };
  };
  return { name: 'vaultcluster', for: VAULT_CLUSTER, reconcile };
}
