import type { KubeObject } from '../../control-plane/types.js';
import type { JsonSchema } from './json-schema.js';

/** Page metadata of a style-A list, written into `meta` as `total`, `page`, `per_page`. */
export interface PageInfo {
  total: number;
  page: number;
  perPage: number;
}

/** `page` (default 1) and `per_page` (default 20, at most 100), for style-A list queries. */
export const PAGE_QUERY_PROPERTIES = {
  page: { type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1' },
  per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Items per page' },
} as const satisfies Record<string, JsonSchema>;

export interface PageQuery {
  page: number;
  per_page: number;
}

/** The rows a page covers. */
export function pageWindow(query: PageQuery): { limit: number; offset: number } {
  return { limit: query.per_page, offset: (query.page - 1) * query.per_page };
}

/**
 * `limit` and `offset` for style-B list queries. Areas differ in their page sizes (20/100 for most
 * lists, 100/1000 for audit entries, 50/200 for integration events).
 */
export function limitOffsetProperties(sizes: { defaultLimit: number; maxLimit: number }) {
  return {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: sizes.maxLimit,
      default: sizes.defaultLimit,
      description: 'Items to return',
    },
    offset: { type: 'integer', minimum: 0, default: 0, description: 'Items to skip' },
  } as const satisfies Record<string, JsonSchema>;
}

export interface LimitOffsetQuery {
  limit: number;
  offset: number;
}

/** One page of `rows` in the style-A list shape. */
export function pageOf<T>(rows: readonly T[], query: PageQuery): { data: T[]; page: PageInfo } {
  const { limit, offset } = pageWindow(query);
  return {
    data: rows.slice(offset, offset + limit),
    page: { total: rows.length, page: query.page, perPage: query.per_page },
  };
}

export function byCreation(a: KubeObject, b: KubeObject): number {
  return (
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}
