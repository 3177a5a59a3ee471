import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../apiserver/openapi.js';
import { ROUTE_AREAS } from '../../apiserver/routes/index.js';
import { operationsRoutes } from '../../apiserver/routes/operations/operations.js';
import { collectRoutes } from '../../apiserver/routing/route-declarations.js';
import type { AnyRouteDefinition, RouteModule } from '../../apiserver/routing/route.js';

const modules = [operationsRoutes, ...ROUTE_AREAS] as readonly RouteModule<never>[];
const routes: AnyRouteDefinition[] = collectRoutes(modules);
const label = (route: AnyRouteDefinition) => `${route.method.toUpperCase()} ${route.path}`;

describe('the route areas', () => {
  it('declare routes without contradictions', () => {
    expect(routes.length).toBeGreaterThan(150);
  });

  it('give every route a named handler', () => {
    const anonymous = routes
      .filter((route) => ['', 'handler', 'anonymous'].includes(route.handler.name))
      .map(label);
    expect(anonymous).toEqual([]);
  });

  it('reach every handler by exactly one route', () => {
    const byHandler = new Map<unknown, string[]>();
    for (const route of routes) {
      byHandler.set(route.handler, [...(byHandler.get(route.handler) ?? []), label(route)]);
    }
    const shared = [...byHandler.values()].filter((labels) => labels.length > 1);
    expect(shared).toEqual([]);
    const names = routes.map((route) => route.handler.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('describe in the OpenAPI document exactly the operations of the table', () => {
    const document = buildOpenApiDocument(routes, {
      title: 'cloudplane',
      version: 'test',
      serverUrl: 'http://localhost',
    });
    const described = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort();
    const declared = routes
      .map((route) => `${route.method} ${route.path.replace(/[:*](\w+)/g, '{$1}')}`)
      .sort();
    expect(described).toEqual(declared);
  });
});
