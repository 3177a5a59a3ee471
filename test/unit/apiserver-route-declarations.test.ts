import { describe, expect, it } from 'vitest';
import { RouteDeclarationError, collectRoutes } from '../../apiserver/routing/route-declarations.js';
import { defineRoute, type RouteDefinition, type RouteModule } from '../../apiserver/routing/route.js';

function route(overrides: Partial<RouteDefinition>): RouteDefinition {
  return {
    ...defineRoute({
      method: 'get',
      path: '/api/v1/vpcs',
      area: 'vpc',
      auth: 'public',
      summary: 'List VPCs',
      responses: { 200: { description: 'VPCs' } },
      async handler() {
        return {};
      },
    }),
    ...overrides,
  } as RouteDefinition;
}

const idParams = { type: 'object', properties: { id: { type: 'string' } } } as const;

function problemsOf(modules: RouteModule[]): string[] {
  try {
    collectRoutes(modules);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(RouteDeclarationError);
    return (error as RouteDeclarationError).problems;
  }
}

describe('collectRoutes', () => {
  it.each([
    {
      name: 'a route in the wrong module',
      routes: [route({ area: 'stacks' })],
      problem: 'GET /api/v1/vpcs: declared in area stacks, module is vpc',
    },
    {
      name: 'a path outside its area',
      routes: [route({ path: '/api/v1/integrations' })],
      problem: 'GET /api/v1/integrations: path belongs to area integrations, not vpc',
    },
    {
      name: 'a path parameter without a schema',
      routes: [route({ path: '/api/v1/vpcs/:id' })],
      problem: 'GET /api/v1/vpcs/:id: path parameters [id] but params schema []',
    },
    {
      name: 'a params schema naming another parameter',
      routes: [route({ path: '/api/v1/vpcs/:vpc_id', request: { params: idParams } })],
      problem: 'GET /api/v1/vpcs/:vpc_id: path parameters [vpc_id] but params schema [id]',
    },
    {
      name: 'a public route with scopes',
      routes: [route({ scopes: ['vpc:read'] })],
      problem: 'GET /api/v1/vpcs: a public route cannot require scopes',
    },
    {
      name: 'the same route twice under other parameter names',
      routes: [
        route({ path: '/api/v1/vpcs/:id', request: { params: idParams } }),
        route({
          path: '/api/v1/vpcs/:vpc',
          request: { params: { type: 'object', properties: { vpc: { type: 'string' } } } },
        }),
      ],
      problem: 'GET /api/v1/vpcs/:vpc: declared twice',
    },
    {
      name: 'no responses',
      routes: [route({ responses: {} })],
      problem: 'GET /api/v1/vpcs: declares no responses',
    },
  ])('refuses $name', ({ routes, problem }) => {
    expect(problemsOf([{ area: 'vpc', routes }])).toContain(problem);
  });

  it('answers the routes most specific first', () => {
    const routes = collectRoutes([
      {
        area: 'vpc',
        routes: [
          route({ path: '/api/v1/vpcs/:id', request: { params: idParams } }),
          route({ path: '/api/v1/vpcs/default' }),
        ],
      },
    ]);
    expect(routes.map((declared) => declared.path)).toEqual(['/api/v1/vpcs/default', '/api/v1/vpcs/:id']);
  });
});
