/**
 * RBAC as the code needs it. Each process declares the requests it makes to the kube-apiserver,
 * with the reason for every verb; the Helm chart's Roles must grant exactly that (a test renders
 * the chart and compares). The Kubernetes store sends, per operation:
 *
 * - get, list, watch, create, update, patch, delete: that verb on the resource (a watch from
 *   "now" lists one item first: list; a delete reads the object first: get);
 * - updateStatus and a patch of status: update and patch on the `status` subresource;
 * - ping: `GET /version`, which every client may read.
 */

import type { PolicyRule } from './rbac-rules.js';

export type KubernetesVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** Stands for every cloudplane kind, by plural, in a permission's resources. */
export const EVERY_KIND = '<every cloudplane kind>';

export interface ApiPermission {
  /** `''` for the core group. */
  apiGroup: string;
  /** Resource names such as `leases` or `widgets/status` (a `*` for the name means every kind of the group), or `EVERY_KIND`. */
  resources: readonly string[];
  /** Each verb granted, with what in the code sends it. */
  verbs: Readonly<Partial<Record<KubernetesVerb, string>>>;
  /** `cluster`: in every namespace (a ClusterRole); `release-namespace`: where the chart is installed (a Role). */
  scope: 'cluster' | 'release-namespace';
}

const VERB_ORDER: readonly KubernetesVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/**
 * The RBAC rules `permissions` of one scope come to, with `EVERY_KIND` spelled out as `kinds`
 * (plurals). A permission on every kind grants nothing while there are no kinds.
 */
export function rbacRules(
  permissions: readonly ApiPermission[],
  scope: ApiPermission['scope'],
  kinds: readonly string[],
): PolicyRule[] {
  return permissions
    .filter((permission) => permission.scope === scope)
    .map((permission) => ({
      apiGroups: [permission.apiGroup],
      resources: permission.resources.flatMap((resource) =>
        resource === EVERY_KIND ? [...kinds] : [resource],
      ),
      verbs: VERB_ORDER.filter((verb) => permission.verbs[verb] !== undefined),
    }))
    .filter((rule) => rule.resources.length > 0);
}
