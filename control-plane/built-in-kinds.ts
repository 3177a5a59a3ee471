import type { KindDescriptor } from './kind-descriptor.js';

/**
 * Kinds a Kubernetes API has built in that cloudplane serves from its own store, so tools that
 * expect them work without a cluster. They are not custom resources: the CRD generator never
 * sees them.
 */

/** Namespaces created with `kubectl create namespace`; listing also shows those that only hold objects. */
export const NAMESPACE_KIND: KindDescriptor = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  categories: [],
  printerColumns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }],
  typesFile: 'control-plane/built-in-kinds.ts',
};

/** `coordination.k8s.io/v1` Lease, so leader election runs against the embedded control plane. */
export const LEASE_KIND: KindDescriptor = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  shortNames: [],
  categories: [],
  printerColumns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' }],
  typesFile: 'control-plane/built-in-kinds.ts',
};

/** The kinds the store must serve besides the custom resources for the Kubernetes API to work. */
export const KUBERNETES_API_KINDS: readonly KindDescriptor[] = [NAMESPACE_KIND, LEASE_KIND];

export function isBuiltIn(kind: { group: string; plural: string }): boolean {
  return KUBERNETES_API_KINDS.some(
    (builtIn) => builtIn.group === kind.group && builtIn.plural === kind.plural,
  );
}
