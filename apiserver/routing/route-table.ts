import { match, type MatchFunction } from 'path-to-regexp';
import { badRequest } from '../errors.js';

/** A route as the table matches it: its template and method, and what answers it. */
export interface TableEntry<T> {
  template: string;
  /** Lower case, as declared: `get` also answers HEAD. */
  method: string;
  value: T;
}

/** What a request path found: the entry of its method, or only the templates it matches. */
export type Lookup<T> =
  | { kind: 'route'; entry: TableEntry<T>; params: Record<string, string | string[]> }
  | { kind: 'other-method'; template: string }
  | { kind: 'none' };

interface Candidate<T> {
  order: number;
  entry: TableEntry<T>;
  matches: MatchFunction<Record<string, string | string[]>>;
}

/** Express's decoding of a path parameter: a malformed escape is the client's error. */
export function decodeParameter(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`the request path is not valid percent-encoded UTF-8: cannot decode ${value}`);
  }
}

const isLiteral = (segment: string) => !segment.includes(':') && !segment.includes('*');

/**
 * A node of the literal prefixes of the templates: the candidates are every template whose leading
 * literal segments are a prefix of the node's path (its own and its ancestors'), in declared order.
 */
interface PrefixNode<T> {
  children: Map<string, PrefixNode<T>>;
  candidates: Candidate<T>[];
}

/**
 * The declared routes, each matched as express matches a route (case-insensitive, an optional
 * trailing slash, parameters percent-decoded), in the order declared. A request walks the
 * templates' literal prefixes by its path's segments and tries only the templates of the deepest
 * node it reaches: those that can match it, still in declared order, rather than every route
 * under `/api/v1`.
 */
export class RouteTable<T> {
  private readonly root: PrefixNode<T> = { children: new Map(), candidates: [] };

  constructor(entries: readonly TableEntry<T>[]) {
    const nodes: PrefixNode<T>[] = [this.root];
    entries.forEach((entry, order) => {
      const candidate: Candidate<T> = {
        order,
        entry,
        matches: match(entry.template.replace(/\/+$/, '') || '/', {
          sensitive: false,
          end: true,
          trailing: true,
          decode: decodeParameter,
        }),
      };
      let node = this.root;
      for (const segment of entry.template.split('/').slice(1)) {
        if (!isLiteral(segment) || segment === '') break;
        const key = segment.toLowerCase();
        let child = node.children.get(key);
        if (!child) {
          child = { children: new Map(), candidates: [...node.candidates] };
          node.children.set(key, child);
          nodes.push(child);
        }
        node = child;
      }
      // The node and every node below it (made before or after) can be asked a path this matches.
      addBelow(node, candidate);
    });
    for (const node of nodes) node.candidates.sort((a, b) => a.order - b.order);
  }

  lookup(method: string, path: string): Lookup<T> {
    const wanted = method === 'HEAD' ? 'get' : method.toLowerCase();
    let otherMethod: string | undefined;
    for (const candidate of this.candidatesFor(path)) {
      const found = candidate.matches(path);
      if (!found) continue;
      if (candidate.entry.method === wanted)
        return { kind: 'route', entry: candidate.entry, params: found.params };
      otherMethod ??= candidate.entry.template;
    }
    return otherMethod === undefined ? { kind: 'none' } : { kind: 'other-method', template: otherMethod };
  }

  private candidatesFor(path: string): readonly Candidate<T>[] {
    let node = this.root;
    let start = 1;
    while (start <= path.length) {
      const end = path.indexOf('/', start);
      const segment = path.slice(start, end === -1 ? path.length : end).toLowerCase();
      const child = node.children.get(segment);
      if (!child) break;
      node = child;
      if (end === -1) break;
      start = end + 1;
    }
    return node.candidates;
  }
}

function addBelow<T>(node: PrefixNode<T>, candidate: Candidate<T>): void {
  node.candidates.push(candidate);
  for (const child of node.children.values()) addBelow(child, candidate);
}
