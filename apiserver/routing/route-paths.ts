/**
 * Route templates in express syntax: literal segments, `:name` parameters and a trailing
 * `*name` wildcard that spans slashes. Optional groups (`{…}`) are not used: OpenAPI cannot
 * describe them, so a route with an optional part is declared as two routes.
 */

const PARAMETER = /[:*]([A-Za-z_][A-Za-z0-9_]*)/g;
const UNSUPPORTED = /[{}()?+[\]]/;

export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(PARAMETER)].map((match) => match[1]!);
}

/** Why the template cannot be served, or `undefined` when it can. */
export function templateProblem(template: string): string | undefined {
  if (!template.startsWith('/')) return 'must start with /';
  if (UNSUPPORTED.test(template)) return 'uses syntax other than literal segments, :param and *wildcard';
  const wildcard = template.indexOf('*');
  if (wildcard !== -1 && wildcard !== template.lastIndexOf('/') + 1) {
    return 'may only end in a *wildcard segment';
  }
  return undefined;
}

export function isWildcardParameter(template: string, name: string): boolean {
  return template.includes(`*${name}`);
}

/** `/vault/:id/secret/*path` → `/vault/{id}/secret/{path}`. */
export function openApiPath(template: string): string {
  return template.replace(PARAMETER, '{$1}');
}

/** Two templates with the same shape match the same requests, whatever their parameter names. */
export function templateShape(template: string): string {
  return template.replace(/:[A-Za-z0-9_]+/g, ':').replace(/\*[A-Za-z0-9_]+/g, '*');
}

function segmentRank(segment: string): number {
  if (segment.includes('*')) return 2;
  if (segment.includes(':')) return 1;
  return 0;
}

/**
 * The rank of a template's i-th segment, its end ranking between a literal and a parameter. A
 * total order, so sorting never depends on the order modules were listed in; templates of
 * different lengths match different paths (wildcards aside), so where the end falls only has to
 * be consistent.
 */
function rankAt(segments: readonly string[], i: number): number {
  return i < segments.length ? segmentRank(segments[i]!) : 0.5;
}

/**
 * Orders templates so that, at the first segment where they differ in kind, a literal comes
 * before a parameter and a parameter before a wildcard: `/integrations/codehost` is tried before
 * `/integrations/:id` whatever order the modules declared them in.
 */
export function compareSpecificity(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = rankAt(left, i) - rankAt(right, i);
    if (difference !== 0) return difference;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A request as the route table reads it: its path, and its query string when it has one. */
export interface RequestTarget {
  path: string;
  query: string | undefined;
}

/** The path and query of a request target; the absolute form (`http://host/path`) is taken too. */
export function targetOf(url: string | undefined): RequestTarget {
  let target = url ?? '/';
  if (!target.startsWith('/') && URL.canParse(target)) {
    const absolute = new URL(target);
    target = `${absolute.pathname}${absolute.search}`;
  }
  const query = target.indexOf('?');
  return query === -1
    ? { path: target, query: undefined }
    : { path: target.slice(0, query), query: target.slice(query + 1) };
}
