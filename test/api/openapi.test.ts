import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

type Json = Record<string, unknown>;

let app: TestApp;
let document: Json;

beforeAll(async () => {
  app = await startTestApp({ routes: ECHO_ROUTES });
  document = (await (await app.request('/openapi.json')).json()) as Json;
});
afterAll(async () => {
  await app.close();
});

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
  );
}

function resolve(pointer: string): unknown {
  expect(pointer.startsWith('#/')).toBe(true);
  return pointer
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
}

const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1.0 document', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it('describes every declared route and the operational endpoints, with {param} paths', () => {
    const declared = ECHO_ROUTES.flatMap((module) => module.routes).map(
      (route) => `${route.method} ${route.path.replace(/[:*](\w+)/g, '{$1}')}`,
    );
    const described = operations().map(({ method, path }) => `${method} ${path}`);
    expect(described.sort()).toEqual(
      [...declared, 'get /health', 'get /metrics', 'get /openapi.json'].sort(),
    );
  });

  it('resolves every $ref', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined();
  });

  it('gives every operation a unique operationId, a summary and at least one response', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation } of operations()) {
      expect(operation.summary).toEqual(expect.any(String));
      expect(Object.keys(operation.responses as Json).length).toBeGreaterThan(0);
    }
  });

  it('declares a path parameter for every {param} in a path', () => {
    for (const { path, operation } of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const declared = (operation.parameters as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort(), path).toEqual(inPath.sort());
    }
  });

  it('applies the style A envelope, with list meta for paginated answers', () => {
    const list = (document.paths as Json)['/v1/stacks/echoes'] as Record<string, Json>;
    const schema = ((list.get!.responses as Json)['200'] as Json).content as Json;
    expect((schema['application/json'] as Json).schema).toMatchObject({
      required: ['data', 'meta'],
      properties: { data: { type: 'array' }, meta: { $ref: '#/components/schemas/ListMeta' } },
    });
  });

  it('documents query parameters with their defaults and the body schema', () => {
    const list = ((document.paths as Json)['/v1/stacks/echoes'] as Record<string, Json>).get!;
    expect(list.parameters).toContainEqual(
      expect.objectContaining({
        name: 'per_page',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ default: 20, maximum: 100 }),
      }),
    );
    const create = ((document.paths as Json)['/v1/stacks/echoes/{name}'] as Record<string, Json>).post!;
    expect(create.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { required: ['message'] } } },
    });
  });

  it('uses the flat error body for accounts and the general one elsewhere', () => {
    const errorRef = (path: string, method: string, status: string) =>
      ((((document.paths as Json)[path] as Json)[method] as Json).responses as Record<string, Json>)[status]!
        .content;
    expect(errorRef('/v1/auth/echo-login', 'post', '400')).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/FlatErrorBody' } },
    });
    expect(errorRef('/api/v1/vpcs/echoes', 'get', '429')).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } },
    });
  });

  it('declares bearer JWT and X-API-Key security, with the scopes each operation needs', () => {
    expect((document.components as Json).securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    const create = ((document.paths as Json)['/v1/stacks/echoes/{name}'] as Record<string, Json>).post!;
    expect(create.security).toEqual([{ bearerAuth: ['stacks:write'] }, { apiKeyAuth: ['stacks:write'] }]);
    const health = ((document.paths as Json)['/health'] as Record<string, Json>).get!;
    expect(health.security).toEqual([]);
  });
});
