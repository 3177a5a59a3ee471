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
function decodeParameter(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`the request path is not valid percent-encoded UTF-8: cannot decode ${value}`);
  }
}

/** The first two segments of a path, lower-cased: the bucket its routes are in. */
function bucketOf(path: string): string {
  const [, first = '', second = ''] = path.split('/', 3);
  return `${first}/${second}`.toLowerCase();
}

const isLiteral = (segment: string) => !segment.includes(':') && !segment.includes('*');

/**
 * The declared routes by the first two segments of their template, each matched as express
 * matches a route (case-insensitive, an optional trailing slash, parameters percent-decoded), in
 * the order declared. One lookup per request rather than express's walk through a layer per
 * route and per path; templates with a parameter in their first two segments are tried with
 * every bucket, in their place in the order.
 */
export class RouteTable<T> {
  private readonly buckets = new Map<string, Candidate<T>[]>();
  private readonly everywhere: Candidate<T>[] = [];

  constructor(entries: readonly TableEntry<T>[]) {
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
      const [, first = '', second = ''] = entry.template.split('/', 3);
      if (!isLiteral(first) || !isLiteral(second)) {
        this.everywhere.push(candidate);
        for (const bucket of this.buckets.values()) bucket.push(candidate);
        return;
      }
      const key = `${first}/${second}`.toLowerCase();
      let bucket = this.buckets.get(key);
      if (!bucket) {
        bucket = [...this.everywhere];
        this.buckets.set(key, bucket);
      }
      bucket.push(candidate);
    });
    for (const bucket of this.buckets.values()) bucket.sort((a, b) => a.order - b.order);
  }

  lookup(method: string, path: string): Lookup<T> {
    const wanted = method === 'HEAD' ? 'get' : method.toLowerCase();
    let otherMethod: string | undefined;
    for (const candidate of this.buckets.get(bucketOf(path)) ?? this.everywhere) {
      const found = candidate.matches(path);
      if (!found) continue;
      if (candidate.entry.method === wanted)
        return { kind: 'route', entry: candidate.entry, params: found.params };
      otherMethod ??= candidate.entry.template;
    }
    return otherMethod === undefined ? { kind: 'none' } : { kind: 'other-method', template: otherMethod };
  }
}
