import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../apiserver/errors.js';
import { NAMESPACE_KIND, SERVICE_ACCOUNT_KIND } from '../../control-plane/built-in-kinds.js';
import type { Principal } from '../../accounts/principal.js';
import {
  ensureTenantNamespace,
  findInOrganization,
  tenantNamespace,
  type OrganizationLookup,
} from '../../apiserver/routing/tenancy.js';
import type { KubeObject } from '../../control-plane/types.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';

function principal(organizationId?: string): Principal {
  return { kind: 'user', id: 'usr_test', organizationId, scopes: ['*'], rateLimitKey: 'user:usr_test' };
}

describe('tenancy', () => {
  let dir: string;
  let store: EmbeddedStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-tenancy-'));
    store = openEmbeddedStore({
      path: path.join(dir, 'store.db'),
      kinds: [NAMESPACE_KIND, SERVICE_ACCOUNT_KIND],
    });
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

  describe('findInOrganization', () => {
    const ACCOUNTS: OrganizationLookup<KubeObject> = {
      type: SERVICE_ACCOUNT_KIND,
      objectName: (id) => `sa-${id}`,
      noun: 'account',
    };
    const ours = principal('org_ourourourourourourourour');
    const theirs = principal('org_theirtheirtheirtheirthe');

    async function put(owner: Principal, name: string, finalizers?: string[]) {
      const namespace = await ensureTenantNamespace(store, owner);
      await store.create(SERVICE_ACCOUNT_KIND, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name, namespace, ...(finalizers ? { finalizers } : {}) },
      });
      return namespace;
    }

    async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
      try {
        await promise;
        return undefined;
      } catch (error) {
        return (error as ApiError).status;
      }
    }

    it("finds an object of the caller's organization under the name its id maps to", async () => {
      await put(ours, 'sa-one');
      const found = await findInOrganization(store, ours, ACCOUNTS, 'one');
      expect(found.metadata.name).toBe('sa-one');
    });

    it("answers another organization's object exactly like a missing one: 404 naming the id", async () => {
      await put(theirs, 'sa-one');
      await expect(findInOrganization(store, ours, ACCOUNTS, 'one')).rejects.toThrow('account one not found');
      await expect(findInOrganization(store, ours, ACCOUNTS, 'two')).rejects.toThrow('account two not found');
      expect(await statusOf(findInOrganization(store, ours, ACCOUNTS, 'one'))).toBe(404);
    });

    it('hides an object whose deletion has begun, unless the family says it is still visible', async () => {
      const namespace = await put(ours, 'sa-going', ['cloudplane.dev/test']);
      await store.delete(SERVICE_ACCOUNT_KIND, namespace, 'sa-going');
      expect(await statusOf(findInOrganization(store, ours, ACCOUNTS, 'going'))).toBe(404);
      const stillShown = { ...ACCOUNTS, visible: () => true };
      expect((await findInOrganization(store, ours, stillShown, 'going')).metadata.name).toBe('sa-going');
    });

    it('answers 403 when the caller has no current organization', async () => {
      expect(await statusOf(findInOrganization(store, principal(), ACCOUNTS, 'one'))).toBe(403);
    });
  });
});
