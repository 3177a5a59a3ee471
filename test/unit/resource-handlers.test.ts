import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../accounts/principal.js';
import type { ApiError } from '../../apiserver/errors.js';
import { deleteResource, listResources, readResource } from '../../apiserver/routing/resource-handlers.js';
import { ensureTenantNamespace } from '../../apiserver/routing/tenancy.js';
import { NAMESPACE_KIND, SERVICE_ACCOUNT_KIND } from '../../control-plane/built-in-kinds.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';

type Thing = KubeObject<{ colour: string }>;

const THINGS = {
  lookup: { type: SERVICE_ACCOUNT_KIND, objectName: (id: string) => `thing-${id}`, noun: 'thing' },
  view: (thing: Thing) => ({ id: thing.metadata.name.slice('thing-'.length), colour: thing.spec!.colour }),
};

function principal(organizationId: string): Principal {
  return { kind: 'user', id: 'usr_test', organizationId, scopes: ['*'], rateLimitKey: 'user:usr_test' };
}

const ours = principal('org_ourourourourourourourour');
const theirs = principal('org_theirtheirtheirtheirthe');
const page = { page: 1, per_page: 20 };

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as ApiError).status;
  }
}

describe('the shared list, read and delete of a resource family', () => {
  let dir: string;
  let store: EmbeddedStore;

  async function put(owner: Principal, id: string, colour?: string) {
    const namespace = await ensureTenantNamespace(store, owner);
    await store.create(SERVICE_ACCOUNT_KIND, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: `thing-${id}`, namespace },
      ...(colour === undefined ? {} : { spec: { colour } }),
    } as KubeObject);
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-resource-handlers-'));
    store = openEmbeddedStore({
      path: path.join(dir, 'store.db'),
      kinds: [NAMESPACE_KIND, SERVICE_ACCOUNT_KIND],
    });
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists the organization's objects with a spec, oldest first, as REST views that pass the filter", async () => {
    await put(ours, 'a', 'red');
    await put(ours, 'b', 'blue');
    await put(ours, 'no-spec');
    await put(theirs, 'c', 'red');
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
    await put(ours, 'a', 'red');
    await put(theirs, 'c', 'red');
    expect(await readResource({ store, principal: ours, params: { id: 'a' } }, THINGS)).toEqual({
      data: { id: 'a', colour: 'red' },
    });
    expect(await statusOf(readResource({ store, principal: ours, params: { id: 'c' } }, THINGS))).toBe(404);
  });

  it("deletes the caller's object with no body, and never another organization's", async () => {
    await put(ours, 'a', 'red');
    await put(theirs, 'c', 'red');
    expect(await deleteResource({ store, principal: ours, params: { id: 'a' } }, THINGS)).toEqual({});
    expect(await statusOf(readResource({ store, principal: ours, params: { id: 'a' } }, THINGS))).toBe(404);
    expect(await statusOf(deleteResource({ store, principal: ours, params: { id: 'c' } }, THINGS))).toBe(404);
    expect(await readResource({ store, principal: theirs, params: { id: 'c' } }, THINGS)).toEqual({
      data: { id: 'c', colour: 'red' },
    });
  });
});
