import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedReadStore } from '../../control-plane/cached-read-store.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { createLogger } from '../../observability/logger.js';
import { eventually } from '../fixtures/eventually.js';
import { anObject, gadgetKind, plateKind, widgetKind, type Widget } from '../fixtures/store-kinds.js';
import { describeObjectStoreContract } from './object-store.contract.js';

const KINDS = [widgetKind, gadgetKind, plateKind];
const logger = createLogger('silent');

describeObjectStoreContract('cached reads over the embedded store', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cached-'));
  const inner = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [...KINDS, EVENT_KIND] });
  const store = new CachedReadStore(inner, { kinds: [widgetKind, gadgetKind], logger });
  await store.synced();
  return {
    store,
    type: widgetKind,
    otherType: gadgetKind,
    namespace: 'cached-test',
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

/** Counts the reads that reach the store underneath; everything is still done by the real store. */
function countingReads(store: EmbeddedStore): { store: ObjectStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'get') reads += 1;
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, reads: () => reads };
}

describe('CachedReadStore', () => {
  let dir: string;
  let inner: EmbeddedStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cached-'));
    inner = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: KINDS });
  });

  afterEach(async () => {
    await inner.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const widget = (name: string, size = 1): Widget =>
    anObject(widgetKind, name, { namespace: 'ns', spec: { size } });

  it('answers gets and lists from its cache, never from the store underneath', async () => {
    const counting = countingReads(inner);
    const cached = new CachedReadStore(counting.store, { kinds: [widgetKind], logger });
    await cached.synced();
    await cached.create(widgetKind, widget('a'));
    for (let i = 0; i < 20; i++) {
      await cached.get(widgetKind, 'ns', 'a');
      await cached.list(widgetKind, { namespace: 'ns' });
    }
    expect(counting.reads()).toBe(0);
    await cached.close();
  });

  it('reads its own writes at once: create, update, status and patch', async () => {
    const cached = new CachedReadStore(inner, { kinds: [widgetKind], logger });
    await cached.synced();
    const created = await cached.create(widgetKind, widget('b'));
    expect((await cached.get<Widget>(widgetKind, 'ns', 'b')).metadata.uid).toBe(created.metadata.uid);
    await cached.patch(widgetKind, 'ns', 'b', { spec: { size: 7 } });
    expect((await cached.get<Widget>(widgetKind, 'ns', 'b')).spec?.size).toBe(7);
    const current = await cached.get<Widget>(widgetKind, 'ns', 'b');
    await cached.updateStatus(widgetKind, { ...current, status: { phase: 'Ready' } });
    expect((await cached.list<Widget>(widgetKind, { namespace: 'ns' })).items[0]?.status?.phase).toBe(
      'Ready',
    );
    await cached.close();
  });

  it('does not show an object it deleted, and shows it again once re-created', async () => {
    const cached = new CachedReadStore(inner, { kinds: [widgetKind], logger });
    await cached.synced();
    await cached.create(widgetKind, widget('c'));
    await cached.delete(widgetKind, 'ns', 'c');
    await expect(cached.get(widgetKind, 'ns', 'c')).rejects.toSatisfy((error) =>
      isStoreError(error, 'NotFound'),
    );
    expect((await cached.list(widgetKind, { namespace: 'ns' })).items).toEqual([]);
    await cached.create(widgetKind, widget('c', 2));
    expect((await cached.get<Widget>(widgetKind, 'ns', 'c')).spec?.size).toBe(2);
    await cached.close();
  });

  it("sees another replica's writes as the watch delivers them", async () => {
    const cached = new CachedReadStore(inner, { kinds: [widgetKind], logger });
    await cached.synced();
    await inner.create(widgetKind, widget('elsewhere'));
    await eventually(async () =>
      expect((await cached.get(widgetKind, 'ns', 'elsewhere')).metadata.name).toBe('elsewhere'),
    );
    await cached.close();
  });

  it('pages a cached list with limit and continue, filtered by labels', async () => {
    const cached = new CachedReadStore(inner, { kinds: [widgetKind], logger });
    await cached.synced();
    for (const name of ['p1', 'p2', 'p3', 'q1']) {
      await cached.create(
        widgetKind,
        anObject(widgetKind, name, { namespace: 'ns', labels: { tier: name[0]! } }),
      );
    }
    const first = await cached.list(widgetKind, { namespace: 'ns', labelSelector: 'tier=p', limit: 2 });
    expect(first.items.map((item) => item.metadata.name)).toEqual(['p1', 'p2']);
    const second = await cached.list(widgetKind, {
      namespace: 'ns',
      labelSelector: 'tier=p',
      limit: 2,
      continue: first.continue,
    });
    expect(second.items.map((item) => item.metadata.name)).toEqual(['p3']);
    expect(second.continue).toBeUndefined();
    await cached.close();
  });
});
