/**
 * The objects garbage collection checks leftovers against, read once per run before any rows:
 * a row written for an object made after this read is younger than the orphan grace, so it is
 * never mistaken for a leftover.
 */
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
import { BACKUP, DATABASE, NFS_SHARE, type Backup } from '../../crds/data-services.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import { vaultClusterId } from '../../vault/vault-engine.js';
import { restIdOf, workloadIdOf } from '../../crds/ids.js';
import { GC_PROTECT_LABEL } from '../../crds/annotations.js';

export interface ControlPlaneView {
  /** `<namespace>/<workload id>` of every Database, NfsShare and Backup. */
  dataServices: ReadonlySet<string>;
  /** The data-plane ids (`<namespace>/<name>`) of every VaultCluster. */
  vaultClusters: ReadonlySet<string>;
  /** Every id a protected object's rows are kept under: workload id, REST id, vault cluster id. */
  protectedIds: ReadonlySet<string>;
  backups: readonly Backup[];
}

export function isProtected(object: KubeObject): boolean {
  return object.metadata.labels?.[GC_PROTECT_LABEL] === 'true';
}

export async function readControlPlaneView(store: ObjectStore): Promise<ControlPlaneView> {
  const dataServices = new Set<string>();
  const protectedIds = new Set<string>();
  const kinds = [
    ['db', DATABASE],
    ['nfs', NFS_SHARE],
    ['bkp', BACKUP],
  ] as const;
  let backups: Backup[] = [];
  for (const [prefix, kind] of kinds) {
    const { items } = await store.list(kind);
    if (kind === BACKUP) backups = items as Backup[];
    for (const object of items) {
      const namespace = object.metadata.namespace ?? '';
      const id = workloadIdOf(prefix, namespace, object.metadata.name);
      dataServices.add(`${namespace}/${id}`);
      if (isProtected(object)) {
        protectedIds.add(id);
        protectedIds.add(restIdOf(object.metadata.name));
      }
    }
  }
  const vaultClusters = new Set<string>();
  for (const cluster of (await store.list(VAULT_CLUSTER)).items) {
    const id = vaultClusterId(cluster.metadata.namespace ?? '', cluster.metadata.name);
    vaultClusters.add(id);
    if (isProtected(cluster)) protectedIds.add(id);
  }
  return { dataServices, vaultClusters, protectedIds, backups };
}
