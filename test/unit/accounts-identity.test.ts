import { describe, expect, it } from 'vitest';
import { describeLocation } from '../../accounts/client-location.js';
import { describeDevice } from '../../accounts/device-description.js';
import { newId } from '../../accounts/ids.js';
import { organizationNamespace } from '../../accounts/organizations.js';
import { intersectScopes, ROLE_SCOPES, scopesBeyond } from '../../accounts/roles.js';

describe('describeDevice', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      'Chrome on Windows',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      'Edge on Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari on macOS',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari on iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    ['curl/8.5.0', 'curl'],
    ['node', 'Node.js'],
    ['', 'Unknown device'],
    [undefined, 'Unknown device'],
    ['SomethingElse/1.0', 'Unknown device'],
  ])('describes %j as %s', (userAgent, description) => {
    expect(describeDevice(userAgent)).toBe(description);
  });
});

describe('describeLocation', () => {
  it.each([
    ['127.0.0.1', 'Local network'],
    ['::ffff:127.0.0.1', 'Local network'],
    ['::1', 'Local network'],
    ['10.1.2.3', 'Local network'],
    ['172.20.0.5', 'Local network'],
    ['192.168.1.10', 'Local network'],
    ['fd00::1', 'Local network'],
    ['8.8.8.8', 'Unknown'],
    ['2001:4860:4860::8888', 'Unknown'],
    ['unknown', 'Unknown'],
  ])('places %s in %s', (address, location) => {
    expect(describeLocation(address)).toBe(location);
  });
});

describe('organizationNamespace', () => {
  it('maps an organization id to a DNS label', () => {
    const id = newId('org');
    const namespace = organizationNamespace(id);
    expect(namespace).toBe(`org-${id.slice(4)}`);
    expect(namespace).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });

  it.each([['usr_abc'], ['org_ABC'], ['org_'], [`org_${'a'.repeat(60)}`]])('refuses %s', (id) => {
    expect(() => organizationNamespace(id)).toThrow(RangeError);
  });
});

describe('roles', () => {
  it('gives owners and admins every scope and members reads plus infrastructure writes', () => {
    expect(ROLE_SCOPES.owner).toEqual(['*']);
    expect(ROLE_SCOPES.admin).toEqual(['*']);
    expect(ROLE_SCOPES.member).toEqual([
      'vault:read',
      'vpc:read',
      'integrations:read',
      'stacks:read',
      'streaming:read',
      'databases:read',
      'usage:read',
      'vpc:write',
      'stacks:write',
      'streaming:write',
      'databases:write',
    ]);
  });

  it.each([
    [['*'], ['vault:write', '*'], []],
    [ROLE_SCOPES.member, ['vault:read', 'vault:write', '*'], ['vault:write', '*']],
  ])('finds what %j does not cover in %j', (granted, requested, beyond) => {
    expect(scopesBeyond(granted, requested)).toEqual(beyond);
  });

  it.each([
    [['*'], ['vault:read'], ['vault:read']],
    [['vault:read', 'vault:write'], ['*'], ['vault:read', 'vault:write']],
    [['vault:read', 'vault:write'], ['vault:read', 'vpc:read'], ['vault:read']],
  ])('intersects %j with %j as %j', (a, b, both) => {
    expect(intersectScopes(a, b)).toEqual(both);
  });
});
