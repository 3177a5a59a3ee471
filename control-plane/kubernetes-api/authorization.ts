/**
 * RBAC as a kube-apiserver decides it: the rules of every Role and ClusterRole bound to the
 * caller (by user, group or ServiceAccount), a RoleBinding's rules applying only in its own
 * namespace. Denials are the default; there are no deny rules. Identities the platform grants
 * namespaces to (the start-up token, platform users) are decided by their grant instead.
 */
import type { ApiStore } from './converted-kinds.js';
import {
  CLUSTER_ROLE_BINDING_KIND,
  CLUSTER_ROLE_KIND,
  ROLE_BINDING_KIND,
  ROLE_KIND,
} from '../built-in-kinds.js';
import {
  ruleAllows,
  type PolicyRule,
  type RequestAttributes,
  type ResourceAttributes,
} from '../rbac-rules.js';
import { isStoreError, type KubeObject } from '../types.js';
import { isGranted, mayUse, type KubeIdentity, type RbacIdentity } from './authentication.js';
import { serviceAccountUser } from './service-account-tokens.js';

/** A rule and where it applies: one namespace, or every namespace and the cluster when absent. */
export interface ScopedRule {
  rule: PolicyRule;
  namespace?: string;
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface RoleRef {
  kind?: string;
  name?: string;
}

function subjectMatches(
  subject: Subject,
  identity: RbacIdentity,
  bindingNamespace: string | undefined,
): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === identity.user;
    case 'Group':
      return subject.name !== undefined && identity.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace ?? bindingNamespace;
      return (
        subject.name !== undefined &&
        namespace !== undefined &&
        serviceAccountUser(namespace, subject.name) === identity.user
      );
    }
    default:
      return false;
  }
}

function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = (role as { rules?: unknown } | undefined)?.rules;
  return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
}

async function readRole(
  store: ApiStore,
  ref: RoleRef,
  namespace: string | undefined,
): Promise<KubeObject | undefined> {
  if (ref.name === undefined) return undefined;
  const kind = ref.kind === 'ClusterRole' ? CLUSTER_ROLE_KIND : ROLE_KIND;
  if (kind === ROLE_KIND && namespace === undefined) return undefined;
  try {
    return await store.get(kind, kind === ROLE_KIND ? namespace : undefined, ref.name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/**
 * What a kube-apiserver's bootstrap policy (`system:basic-user`, `system:discovery`) gives every
 * authenticated caller: asking who it is and what it may do, and reading discovery.
 */
const AUTHENTICATED_RULES: readonly ScopedRule[] = [
  {
    rule: {
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      verbs: ['create'],
    },
  },
  { rule: { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] } },
  {
    rule: {
      nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi/*', '/version'],
      verbs: ['get'],
    },
  },
];

/** Every rule bound to the identity, read from the store's RBAC objects. */
export async function rulesFor(store: ApiStore, identity: RbacIdentity): Promise<ScopedRule[]> {
  const [clusterBindings, bindings] = await Promise.all([
    store.list(CLUSTER_ROLE_BINDING_KIND, {}),
    store.list(ROLE_BINDING_KIND, {}),
  ]);
  const scoped: ScopedRule[] = [...AUTHENTICATED_RULES];
  for (const binding of [...clusterBindings.items, ...bindings.items]) {
    const { subjects, roleRef } = binding as { subjects?: Subject[]; roleRef?: RoleRef };
    const namespace = binding.metadata.namespace;
    if (!(subjects ?? []).some((subject) => subjectMatches(subject, identity, namespace))) continue;
    const role = await readRole(store, roleRef ?? {}, namespace);
    for (const rule of rulesOf(role)) scoped.push(namespace === undefined ? { rule } : { rule, namespace });
  }
  return scoped;
}

/** Whether the rules allow the request (a namespaced rule only in its namespace). */
export function rbacAllows(rules: readonly ScopedRule[], request: RequestAttributes): boolean {
  const requestNamespace = 'path' in request ? undefined : request.namespace;
  return rules.some(
    ({ rule, namespace }) =>
      (namespace === undefined || namespace === requestNamespace) && ruleAllows(rule, request),
  );
}

/**
 * The decision for a request on a resource. A granted identity may use its namespaces (lists
 * across namespaces pass and are filtered); a namespace may be deleted only by a caller that may
 * use every namespace.
 */
export function isAllowed(
  identity: KubeIdentity,
  rules: readonly ScopedRule[],
  request: ResourceAttributes,
  namespaced: boolean,
): boolean {
  if (!isGranted(identity)) return rbacAllows(rules, request);
  if (identity.namespaces === 'all') return true;
  if (request.group === '' && request.resource === 'namespaces') {
    if (request.verb === 'list' || request.verb === 'watch') return true;
    if (request.verb === 'delete' || request.verb === 'deletecollection') return false;
    return request.name !== undefined && mayUse(identity, request.name);
  }
  if (namespaced) return request.namespace === undefined || mayUse(identity, request.namespace);
  return false;
}
