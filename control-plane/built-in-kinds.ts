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

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function builtIn(
  group: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  shortNames: string[] = [],
): KindDescriptor {
  return {
    group,
    version: 'v1',
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames,
    categories: [],
    printerColumns: [],
    typesFile: 'control-plane/built-in-kinds.ts',
  };
}

/** The identities processes run as; their tokens come from the `token` subresource. */
export const SERVICE_ACCOUNT_KIND = builtIn('', 'ServiceAccount', 'serviceaccounts', true, ['sa']);
export const ROLE_KIND = builtIn(RBAC_GROUP, 'Role', 'roles', true);
export const CLUSTER_ROLE_KIND = builtIn(RBAC_GROUP, 'ClusterRole', 'clusterroles', false);
export const ROLE_BINDING_KIND = builtIn(RBAC_GROUP, 'RoleBinding', 'rolebindings', true);
export const CLUSTER_ROLE_BINDING_KIND = builtIn(
  RBAC_GROUP,
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
);

/**
 * Core `v1` Event: what controllers record about the objects they reconcile, and what
 * `kubectl describe` and `kubectl events` show. Its table is built in `kubernetes-api/table.ts`
 * (Last Seen, Type, Reason, Object, Message), as a kube-apiserver prints it.
 */
export const EVENT_KIND = builtIn('', 'Event', 'events', true, ['ev']);

/**
 * `events.k8s.io/v1` Event: the same objects as `EVENT_KIND` under the newer field names
 * (`regarding`, `note`, `series`). The Kubernetes API serves it as a view of the stored core
 * Events, as a kube-apiserver converts between the two; the store never holds it.
 */
export const EVENTS_V1_KIND: KindDescriptor = builtIn('events.k8s.io', 'Event', 'events', true, ['ev']);

/** The kinds the store must serve besides the custom resources for the Kubernetes API to work. */
export const KUBERNETES_API_KINDS: readonly KindDescriptor[] = [
  NAMESPACE_KIND,
  LEASE_KIND,
  EVENT_KIND,
  SERVICE_ACCOUNT_KIND,
  ROLE_KIND,
  CLUSTER_ROLE_KIND,
  ROLE_BINDING_KIND,
  CLUSTER_ROLE_BINDING_KIND,
];

/**
 * Requests the API answers without storing anything: `create` returns the object with its
 * `status` filled (whether a token is valid, whether a request would be allowed).
 */
export const REVIEW_KINDS: readonly KindDescriptor[] = [
  builtIn('authentication.k8s.io', 'TokenReview', 'tokenreviews', false),
  builtIn('authentication.k8s.io', 'SelfSubjectReview', 'selfsubjectreviews', false),
  builtIn('authorization.k8s.io', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false),
  builtIn('authorization.k8s.io', 'SubjectAccessReview', 'subjectaccessreviews', false),
];

export function isBuiltIn(kind: { group: string; plural: string }): boolean {
  return [...KUBERNETES_API_KINDS, EVENTS_V1_KIND].some(
    (builtIn) => builtIn.group === kind.group && builtIn.plural === kind.plural,
  );
}
