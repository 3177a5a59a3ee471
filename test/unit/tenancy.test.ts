import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../apiserver/errors.js';
import { deleteResource, listResources, readResource } from '../../apiserver/routing/resource-handlers.js';
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

type Thing = KubeObject<{ colour: string }>;

const THINGS = {
  lookup: { type: SERVICE_ACCOUNT_KIND, objectName: (id: string) => `thing-${id}`, noun: 'thing' },
  view: (thing: Thing) => ({ id: thing.metadata.name.slice('thing-'.length), colour: thing.spec!.colour }),
};

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as ApiError).status;
  }
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

  describe('the shared list, read and delete of a resource family', () => {
    const ours = principal('org_ourourourourourourourour');
    const theirs = principal('org_theirtheirtheirtheirthe');
    const page = { page: 1, per_page: 20 };

    async function putThing(owner: Principal, id: string, colour?: string) {
      const namespace = await ensureTenantNamespace(store, owner);
      await store.create(SERVICE_ACCOUNT_KIND, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: `thing-${id}`, namespace },
        ...(colour === undefined ? {} : { spec: { colour } }),
      } as KubeObject);
    }

    it("lists the organization's objects with a spec, oldest first, as REST views that pass the filter", async () => {
      await putThing(ours, 'a', 'red');
      await putThing(ours, 'b', 'blue');
      await putThing(ours, 'no-spec');
      await putThing(theirs, 'c', 'red');
      const all = await listResources({ store, principal: ours, query: page }, THINGS);
      expect(all.data.map((row) => row.id).sort()).toEqual(['a', 'b']);
      expect(all.page).toEqual({ total: 2, page: 1, perPage: 20 });
      const red = await listResources(
        { store, principal: ours, query: page },
        THINGS,
        (row) => row.colour === 'red',
      );
      expect(red.data).toEqual([{ id: 'a', colour: 'red' }]);
    });

    it("reads one object's view, and answers 404 for another organization's", async () => {
      await putThing(ours, 'a', 'red');
      await putThing(theirs, 'c', 'red');
      expect(await readResource({ store, principal: ours, params: { id: 'a' } }, THINGS)).toEqual({
        data: { id: 'a', colour: 'red' },
      });
      expect(await statusOf(readResource({ store, principal: ours, params: { id: 'c' } }, THINGS))).toBe(404);
    });

    it("deletes the caller's object with no body, and never another organization's", async () => {
      await putThing(ours, 'a', 'red');
      await putThing(theirs, 'c', 'red');
      expect(await deleteResource({ store, principal: ours, params: { id: 'a' } }, THINGS)).toEqual({});
      expect(await statusOf(readResource({ store, principal: ours, params: { id: 'a' } }, THINGS))).toBe(404);
      expect(await statusOf(deleteResource({ store, principal: ours, params: { id: 'c' } }, THINGS))).toBe(
        404,
      );
      expect(await readResource({ store, principal: theirs, params: { id: 'c' } }, THINGS)).toEqual({
        data: { id: 'c', colour: 'red' },
      });
    });
  });
});
