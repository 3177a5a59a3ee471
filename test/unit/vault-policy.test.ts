import { describe, expect, it } from 'vitest';
import { capabilitiesOn, comparePriority } from '../../vault/policy-evaluator.js';
import { parsePolicy } from '../../vault/policy-parser.js';

const policy = (rules: string) => parsePolicy(rules);
const block = (path: string, ...capabilities: string[]) =>
  `path "${path}" {\n  capabilities = [${capabilities.map((c) => `"${c}"`).join(', ')}]\n}\n`;

describe('policy rules parser', () => {
  it('parses path blocks with comments and merges blocks for the same path', () => {
    const rules = [
      '# application secrets',
      block('secret/data/app/*', 'read', 'list'),
      '// again',
      block('secret/data/app/*', 'update'),
      'path "transit/encrypt/orders" { capabilities = ["update"] }',
    ].join('\n');
    expect(parsePolicy(rules)).toEqual([
      { pattern: 'secret/data/app/*', capabilities: ['read', 'list', 'update'] },
      { pattern: 'transit/encrypt/orders', capabilities: ['update'] },
    ]);
  });

  it.each([
    ['path "a" {\n  capabilities = ["read"\n}', 'line 3: expected "," or "]", found "}"'],
    ['path "a" {\n  capabilities = ["fly"]\n}', 'line 2: unknown capability "fly"'],
    ['path "a" {\n  policy = "read"\n}', 'line 2: unsupported attribute "policy"'],
    ['path a {}', 'line 1: expected the path in double quotes'],
    ['\n\nkey "a" {}', 'line 3: expected a path block, found "key"'],
    ['path "a/*/b" { capabilities = ["read"] }', 'line 1: path "a/*/b": "*" may only end a path'],
    ['path "a/b+" { capabilities = ["read"] }', 'line 1: path "a/b+": "+" must be a whole path segment'],
    ['path "a" {\n}', 'line 1: path "a" has no capabilities'],
    ['path "a" { capabilities = ["read"]', 'line 1: unexpected end of rules'],
    ['path "a', 'line 1: string is not closed'],
  ])('refuses %j naming the line', (rules, message) => {
    expect(() => parsePolicy(rules)).toThrow(message);
  });
});

describe('policy evaluation (Vault semantics)', () => {
  it.each([
    {
      name: 'default deny: no matching path grants nothing',
      policies: [block('secret/data/a', 'read')],
      path: 'secret/data/b',
      want: [],
    },
    {
      name: 'an exact path matches only itself',
      policies: [block('secret/data/a', 'read')],
      path: 'secret/data/a',
      want: ['read'],
    },
    {
      name: '* matches any suffix',
      policies: [block('secret/data/app/*', 'read')],
      path: 'secret/data/app/db/primary',
      want: ['read'],
    },
    {
      name: '* is a prefix match within a segment',
      policies: [block('secret/data/app*', 'read')],
      path: 'secret/data/application',
      want: ['read'],
    },
    {
      name: '+ matches exactly one segment',
      policies: [block('secret/data/+/db', 'read')],
      path: 'secret/data/team/db',
      want: ['read'],
    },
    {
      name: '+ does not match two segments',
      policies: [block('secret/data/+/db', 'read')],
      path: 'secret/data/a/b/db',
      want: [],
    },
    {
      name: 'deny wins when policies grant the same path',
      policies: [block('secret/data/x', 'read'), block('secret/data/x', 'deny')],
      path: 'secret/data/x',
      want: [],
    },
    {
      name: 'capabilities for the same path merge across policies',
      policies: [block('secret/data/x', 'read'), block('secret/data/x', 'update')],
      path: 'secret/data/x',
      want: ['read', 'update'],
    },
    {
      name: 'an exact path beats a glob',
      policies: [block('secret/data/*', 'deny'), block('secret/data/open', 'read')],
      path: 'secret/data/open',
      want: ['read'],
    },
    {
      name: 'the longer glob beats the shorter one',
      policies: [block('secret/*', 'read'), block('secret/data/*', 'deny')],
      path: 'secret/data/x',
      want: [],
    },
    {
      name: 'a later first wildcard beats an earlier one',
      policies: [block('secret/+/x', 'read'), block('secret/data/+', 'update')],
      path: 'secret/data/x',
      want: ['update'],
    },
    {
      name: 'no trailing * beats a trailing * at the same position',
      policies: [block('secret/data/+', 'read'), block('secret/data/*', 'update')],
      path: 'secret/data/x',
      want: ['read'],
    },
    {
      name: 'fewer + segments win',
      policies: [block('secret/+/+', 'read'), block('secret/+/x', 'update')],
      path: 'secret/data/x',
      want: ['update'],
    },
  ])('$name', ({ policies, path, want }) => {
    expect([...capabilitiesOn(policies.map(policy), path)].sort()).toEqual([...want].sort());
  });

  it.each([
    ['secret/data/a', 'secret/data/*', 1],
    ['secret/data/*', 'secret/*', 1],
    ['secret/data/+', 'secret/+/x', 1],
    ['secret/data/b', 'secret/data/a', 1],
  ])('ranks %s above %s', (a, b, sign) => {
    expect(Math.sign(comparePriority(a, b))).toBe(sign);
    expect(Math.sign(comparePriority(b, a))).toBe(-sign);
  });
});
