/** The `ObjectStore` backend on a real kube-apiserver, through `@kubernetes/client-node`. */
export { openKubernetesStore, type KubernetesStoreOptions, type RetryPolicy } from './kubernetes-store.js';
