import { describe, expect, it } from 'vitest';
import { areaOfPath, errorStyleOfPath } from '../../apiserver/routing/areas.js';
import {
  compareSpecificity,
  openApiPath,
  pathParameterNames,
  templateProblem,
  templateShape,
} from '../../apiserver/routing/route-paths.js';

describe('route templates', () => {
  it.each([
    ['/api/v1/vpcs/:id', '/api/v1/vpcs/{id}', ['id']],
    ['/api/v1/vpcs/:id/subnets/:subnet_id', '/api/v1/vpcs/{id}/subnets/{subnet_id}', ['id', 'subnet_id']],
    ['/api/v1/vault/:id/secret/*path', '/api/v1/vault/{id}/secret/{path}', ['id', 'path']],
    ['/health', '/health', []],
  ])('writes %s as the OpenAPI path %s', (template, path, names) => {
    expect(openApiPath(template)).toBe(path);
    expect(pathParameterNames(template)).toEqual(names);
  });

  it.each([
    ['api/v1/vpcs', 'must start with /'],
    ['/api/v1/vpcs{/:id}', 'uses syntax other than literal segments, :param and *wildcard'],
    ['/api/v1/vault/*path/meta', 'may only end in a *wildcard segment'],
  ])('refuses %s: %s', (template, problem) => {
    expect(templateProblem(template)).toBe(problem);
  });

  it('gives templates that differ only in parameter names the same shape', () => {
    expect(templateShape('/vpcs/:id/subnets/:subnet')).toBe(templateShape('/vpcs/:vpc/subnets/:name'));
  });

  it('orders literal segments before parameters and parameters before wildcards', () => {
    const templates = ['/x/*rest', '/x/:id/y', '/x/:id', '/x/latest', '/x/latest/:id'];
    expect([...templates].sort(compareSpecificity)).toEqual([
      '/x/latest',
      '/x/latest/:id',
      '/x/:id/y',
      '/x/:id',
      '/x/*rest',
    ]);
  });
});

describe('areas', () => {
  it.each([
    ['/v1/auth/login', 'accounts', 'flat'],
    ['/v1/organizations/org_1', 'accounts', 'flat'],
    ['/v1/stacks/stk_1/plan', 'stacks', 'general'],
    ['/v1/databases', 'resources', 'general'],
    ['/api/v1/vault/v1/secret/a', 'vault', 'general'],
    ['/api/v1/vpcs', 'vpc', 'general'],
    ['/api/v1/integrations/i/test', 'integrations', 'general'],
    ['/api/v1/usage/costs', 'usage', 'general'],
    ['/webhooks/codehost/int_1', 'webhooks', 'general'],
    ['/health', 'operations', 'general'],
    ['/v1/authority', 'resources', 'general'],
    ['/api/v1/other', undefined, 'general'],
  ])('puts %s in area %s with %s errors', (path, area, style) => {
    expect(areaOfPath(path)).toBe(area);
    expect(errorStyleOfPath(path)).toBe(style);
  });
});
