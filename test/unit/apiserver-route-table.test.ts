import { describe, expect, it } from 'vitest';
import { RouteTable, type TableEntry } from '../../apiserver/routing/route-table.js';
import { compareSpecificity } from '../../apiserver/routing/route-paths.js';

const TEMPLATES: [string, string][] = [
  ['get', '/health'],
  ['get', '/api/v1/:kind/:id'],
  ['get', '/api/v1/vpcs/:id'],
  ['delete', '/api/v1/vpcs/:id'],
  ['get', '/api/v1/vpcs/:id/subnets'],
  ['get', '/api/v1/vault/:id/secret/*path'],
  ['post', '/api/v1/vault/:id/secret/*path'],
  ['get', '/v1/auth/me'],
  ['get', '/v1/:area/me'],
];

function table(templates = TEMPLATES): RouteTable<string> {
  const entries: TableEntry<string>[] = templates
    .map(([method, template]) => ({ method, template, value: `${method.toUpperCase()} ${template}` }))
    .sort((a, b) => compareSpecificity(a.template, b.template));
  return new RouteTable(entries);
}

describe('RouteTable', () => {
  it.each([
    ['GET', '/health', 'GET /health', {}],
    ['GET', '/HEALTH/', 'GET /health', {}],
    ['HEAD', '/health', 'GET /health', {}],
    ['GET', '/api/v1/vpcs/vpc-1', 'GET /api/v1/vpcs/:id', { id: 'vpc-1' }],
    ['DELETE', '/api/v1/vpcs/vpc-1', 'DELETE /api/v1/vpcs/:id', { id: 'vpc-1' }],
    ['GET', '/api/v1/Vpcs/vpc-1/subnets/', 'GET /api/v1/vpcs/:id/subnets', { id: 'vpc-1' }],
    ['GET', '/api/v1/databases/db%201', 'GET /api/v1/:kind/:id', { kind: 'databases', id: 'db 1' }],
    [
      'GET',
      '/api/v1/vault/v1/secret/a/b',
      'GET /api/v1/vault/:id/secret/*path',
      { id: 'v1', path: ['a', 'b'] },
    ],
    ['GET', '/v1/auth/me', 'GET /v1/auth/me', {}],
    ['GET', '/v1/organizations/me', 'GET /v1/:area/me', { area: 'organizations' }],
  ])('%s %s is %s', (method, path, answer, params) => {
    const found = table().lookup(method, path);
    expect(found).toEqual({ kind: 'route', entry: expect.objectContaining({ value: answer }), params });
  });

  it('tries a template with a parameter where a literal is also declared, after the literal ones', () => {
    // /api/v1/vpcs/:id/subnets is deeper, and /api/v1/:kind/:id must still answer vpcs paths it alone matches.
    expect(table().lookup('GET', '/api/v1/vpcs')).toEqual({ kind: 'none' });
    const found = table([['get', '/api/v1/:kind/:id']]).lookup('GET', '/api/v1/vpcs/x');
    expect(found).toMatchObject({ kind: 'route', params: { kind: 'vpcs', id: 'x' } });
  });

  it('names a template the path matches with another method, and nothing for an unknown path', () => {
    expect(table().lookup('PUT', '/api/v1/vpcs/vpc-1')).toEqual({
      kind: 'other-method',
      template: '/api/v1/vpcs/:id',
    });
    expect(table().lookup('GET', '/api/v2/vpcs/vpc-1')).toEqual({ kind: 'none' });
    expect(table().lookup('GET', '//health')).toEqual({ kind: 'none' });
  });

  it('refuses a parameter that is not valid percent-encoded UTF-8 with 400', () => {
    expect(() => table().lookup('GET', '/api/v1/vpcs/%E0%A4%A')).toThrow(/percent-encoded/);
  });
});
