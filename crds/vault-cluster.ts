import type { Condition, KubeObject } from '../control-plane/types.js';
import {
  GROUP,
  READY_MESSAGE_COLUMN,
  READY_REASON_COLUMN,
  VERSION,
  type KindDescriptor,
} from '../control-plane/kind-descriptor.js';

/** Lease lifetimes the cluster's token auth method starts with. */
export interface VaultClusterSettings {
  /**
   * Lifetime of a token created without a ttl, in seconds.
   * @asType integer
   * @minimum 1
   */
  defaultLeaseTtlSeconds?: number;
  /**
   * The longest lifetime a token may have, in seconds.
   * @asType integer
   * @minimum 1
   */
  maxLeaseTtlSeconds?: number;
}

/**
 * A secrets-management cluster: versioned secrets, policies, tokens, named encryption keys and an
 * audit log. Its key material lives in the data plane, never in this object.
 */
export interface VaultClusterSpec {
  /** The display name. */
  name: string;
  /**
   * Whether the cluster unseals itself with the platform key. A cluster created without it is
   * initialised only through POST /api/v1/vault, which hands out its unseal keys once.
   */
  autoUnseal?: boolean;
  /**
   * Unseal key shares the root key is split into (default 5).
   * @asType integer
   * @minimum 1
   * @maximum 255
   */
  shares?: number;
  /**
   * Shares needed to unseal (default 3).
   * @asType integer
   * @minimum 1
   * @maximum 255
   */
  threshold?: number;
  settings?: VaultClusterSettings;
}

export type VaultClusterPhase = 'provisioning' | 'running' | 'sealed' | 'error';

export interface VaultClusterStatus {
  phase?: VaultClusterPhase;
  sealed?: boolean;
  /** The secrets engine's software version. */
  version?: string;
  /** Where the cluster's Vault-compatible API answers. */
  apiAddress?: string;
  /**
   * Secrets whose latest version is live.
   * @asType integer
   */
  totalSecrets?: number;
  /**
   * Encrypted storage the secrets take, rounded up to whole mebibytes.
   * @asType integer
   */
  storageUsedMb?: number;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type VaultCluster = KubeObject<VaultClusterSpec, VaultClusterStatus>;

export const VAULT_CLUSTER: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'VaultCluster',
  plural: 'vaultclusters',
  singular: 'vaultcluster',
  namespaced: true,
  shortNames: ['vault', 'vc'],
  categories: ['cloudplane', 'all'],
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Sealed', type: 'boolean', jsonPath: '.status.sealed' },
    { name: 'Secrets', type: 'integer', jsonPath: '.status.totalSecrets' },
    { name: 'Auto Unseal', type: 'boolean', jsonPath: '.spec.autoUnseal', priority: 1 },
    { name: 'Address', type: 'string', jsonPath: '.status.apiAddress', priority: 1 },
    READY_MESSAGE_COLUMN,
  ],
  typesFile: 'crds/vault-cluster.ts',
};
