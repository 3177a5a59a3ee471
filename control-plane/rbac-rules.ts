/**
 * Kubernetes RBAC policy rules and how one is matched against a request, with the semantics of
 * the kube-apiserver's RBAC authorizer: `*` matches any verb, group or resource, `<resource>/<sub>`
 * names a subresource and `*\/<sub>` that subresource of every resource, and `resourceNames`
 * narrows a rule to some objects.
 */

export interface PolicyRule {
  verbs: string[];
  /** `''` is the core group. */
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  /** Paths such as `/version` or `/apis/*`, for requests that are not about a resource. */
  nonResourceURLs?: string[];
}

/** A request about a resource, in the terms RBAC decides on (Kubernetes' authorizer attributes). */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
  /** Absent for cluster-scoped resources and requests across namespaces. */
  namespace?: string;
}

/** A request for a path that names no resource (`/version`, discovery). */
export interface NonResourceAttributes {
  verb: string;
  path: string;
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

function matches(allowed: readonly string[] | undefined, value: string): boolean {
  return (allowed ?? []).some((entry) => entry === '*' || entry === value);
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string | undefined): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some(
    (entry) =>
      entry === '*' || entry === combined || (subresource !== undefined && entry === `*/${subresource}`),
  );
}

function pathMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (entry) =>
      entry === '*' || entry === path || (entry.endsWith('*') && path.startsWith(entry.slice(0, -1))),
  );
}

/** Whether `rule` allows the request. */
export function ruleAllows(rule: PolicyRule, request: RequestAttributes): boolean {
  if (!matches(rule.verbs, request.verb)) return false;
  if ('path' in request) return pathMatches(rule, request.path);
  if (!matches(rule.apiGroups, request.group)) return false;
  if (!resourceMatches(rule, request.resource, request.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (request.name !== undefined && names.includes(request.name));
}

/** Whether any of `rules` allows the request. */
export function rulesAllow(rules: readonly PolicyRule[], request: RequestAttributes): boolean {
  return rules.some((rule) => ruleAllows(rule, request));
}
