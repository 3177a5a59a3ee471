/** The VaultCluster kind: its controller and the defaults a cluster is created with. */
export { DEFAULT_SHARES, DEFAULT_THRESHOLD } from './engine.js';
export { vaultClusterController } from './vaultcluster-controller.js';
