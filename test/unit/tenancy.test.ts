import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../apiserver/errors.js';
import { NAMESPACE_KIND } from '../../control-plane/built-in-kinds.js';
import type { Principal } from '../../accounts/principal.js';
import { ensureTenantNamespace, tenantNamespace } from '../../apiserver/routing/tenancy.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';

function principal(organizationId?: string): Principal {
  return { kind: 'user', id: 'usr_test', organizationId, scopes: ['*'], rateLimitKey: 'user:usr_test' };
}

describe('tenancy', () => {
  let dir: string;
  let store: EmbeddedStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-tenancy-'));
    store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [NAMESPACE_KIND] });
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('puts an organization in the namespace org-<id>', () => {
    expect(tenantNamespace(principal('org_abcdefghijklmnopqrstuvwx'))).toBe('org-abcdefghijklmnopqrstuvwx');
  });

  it('answers 403 naming the fix when the caller has no current organization', () => {
    expect(() => tenantNamespace(principal())).toThrow(ApiError);
    expect(() => tenantNamespace(principal())).toThrow(/PATCH \/v1\/auth\/me/);
  });

  it('creates the namespace before the first resource, labelled with its organization, once', async () => {
    expect(await ensureTenantNamespace(store, principal('org_firstfirstfirstfirstfirs'))).toBe(
      'org-firstfirstfirstfirstfirs',
    );
    const created = await store.get(NAMESPACE_KIND, undefined, 'org-firstfirstfirstfirstfirs');
    expect(created.metadata.labels).toEqual({
      'cloudplane.dev/organization': 'org_firstfirstfirstfirstfirs',
    });
    await ensureTenantNamespace(store, principal('org_firstfirstfirstfirstfirs'));
    expect(
      (await store.get(NAMESPACE_KIND, undefined, 'org-firstfirstfirstfirstfirs')).metadata.resourceVersion,
    ).toBe(created.metadata.resourceVersion);
  });

  it('accepts a namespace that someone else created first', async () => {
    await store.create(NAMESPACE_KIND, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'org-takentakentakentakentake' },
    });
    expect(await ensureTenantNamespace(store, principal('org_takentakentakentakentake'))).toBe(
      'org-takentakentakentakentake',
    );
  });
});
