import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { vaultClusterId, type VaultClusterEngine, type VaultEngine } from '../../vault/vault-engine.js';
import { VAULT_CLUSTER, type VaultCluster } from '../../crds/vault-cluster.js';
import { KeptAtRevision } from '../routing/kept-at-revision.js';

/** The cluster a request addresses. */
export interface AddressedCluster {
  /** The data-plane id (`<namespace>/<name>`). */
  id: string;
  engine: VaultClusterEngine;
  /** False for a cluster applied without autoUnseal and never initialised through the REST API. */
  initialized: boolean;
}

const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const PAGE_SIZE = 500;

/**
 * Finds a cluster by the id in its address (the VaultCluster's name), in whichever organization
 * namespace holds it. The address carries no namespace, so the namespace a name was found in is
 * remembered and confirmed with a get, whose answer is kept while the store's revision stays (a
 * deletion moves it); a name held in several namespaces (only possible for clusters applied with
 * kubectl) addresses none of them.
 */
export class ClusterDirectory {
  private readonly namespaces = new Map<string, string>();
  /** Remembered namespaces confirmed to hold their cluster, kept at the revision of the get. */
  private readonly confirmed = new KeptAtRevision<string | null>();

  constructor(
    private readonly store: ObjectStore,
    private readonly engine: VaultEngine,
  ) {}

  async find(name: string): Promise<AddressedCluster | undefined> {
    if (!CLUSTER_NAME.test(name)) return undefined;
    const namespace = (await this.confirmedNamespace(name)) ?? (await this.searchNamespace(name));
    if (namespace === undefined) return undefined;
    const id = vaultClusterId(namespace, name);
    return {
      id,
      engine: this.engine.forCluster(id),
      initialized: await this.engine.isInitialized(id),
    };
  }

  private async confirmedNamespace(name: string): Promise<string | undefined> {
    const namespace = this.namespaces.get(name);
    if (namespace === undefined) return undefined;
    const confirmed = await this.confirmed.answer(
      this.store,
      `${namespace}/${name}`,
      () => this.confirm(name, namespace),
      (answer) => answer !== null,
    );
    return confirmed ?? undefined;
  }

  /** Whether `namespace` still holds the live cluster `name`; forgets it when not. */
  private async confirm(name: string, namespace: string): Promise<string | null> {
    try {
      const cluster = await this.store.get<VaultCluster>(VAULT_CLUSTER, namespace, name);
      if (!cluster.metadata.deletionTimestamp) return namespace;
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
    }
    this.namespaces.delete(name);
    return null;
  }

  private async searchNamespace(name: string): Promise<string | undefined> {
    const found: string[] = [];
    let page: string | undefined;
    do {
      const list = await this.store.list<VaultCluster>(VAULT_CLUSTER, { limit: PAGE_SIZE, continue: page });
      for (const cluster of list.items) {
        if (cluster.metadata.name === name && !cluster.metadata.deletionTimestamp) {
          found.push(cluster.metadata.namespace ?? '');
        }
      }
      page = list.continue;
    } while (page);
    if (found.length !== 1) return undefined;
    this.namespaces.set(name, found[0]!);
    return found[0];
  }
}
