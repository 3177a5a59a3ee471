import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { isStoreError } from '../../control-plane/types.js';
import { anObject, widgetKind, type Widget } from '../fixtures/store-kinds.js';
import { WatchReader } from '../fixtures/store-watch.js';

const NAMESPACE = 'group-commit';

/** Holds every WAL flush until released, so a case can look at what is answered before it. */
function holdFlushes() {
  const held: Array<() => void> = [];
  const original = fs.fdatasync;
  const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((
    descriptor: number,
    callback: (error: NodeJS.ErrnoException | null) => void,
  ) => {
    held.push(() => original(descriptor, callback));
  }) as typeof fs.fdatasync);
  return {
    get pending() {
      return held.length;
    },
    release() {
      for (const flush of held.splice(0)) flush();
    },
    restore: () => spy.mockRestore(),
  };
}

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
}

describe('embedded store group commit', () => {
  const directories: string[] = [];
  const stores: EmbeddedStore[] = [];

  function open(): EmbeddedStore {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-group-commit-'));
    directories.push(dir);
    const store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [widgetKind] });
    stores.push(store);
    return store;
  }

  afterEach(async () => {
    vi.restoreAllMocks();
    for (const store of stores.splice(0)) await store.close();
    for (const dir of directories.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commits writes issued together, failing only the one that is refused', async () => {
    const store = open();
    await store.create(widgetKind, anObject(widgetKind, 'taken', { namespace: NAMESPACE }));
    const results = await Promise.allSettled([
      store.create(widgetKind, anObject(widgetKind, 'first', { namespace: NAMESPACE })),
      store.create(widgetKind, anObject(widgetKind, 'taken', { namespace: NAMESPACE })),
      store.create(widgetKind, anObject(widgetKind, 'dry', { namespace: NAMESPACE }), { dryRun: true }),
      store.create(widgetKind, anObject(widgetKind, 'second', { namespace: NAMESPACE })),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const [first, refused, dry, second] = results;
    expect(isStoreError(refused.status === 'rejected' ? refused.reason : undefined, 'AlreadyExists')).toBe(
      true,
    );
    expect(dry.status === 'fulfilled' && dry.value.metadata.resourceVersion).toBeUndefined();
    const revisions = [first, second].map((result) =>
      result.status === 'fulfilled' ? Number(result.value.metadata.resourceVersion) : NaN,
    );
    expect(revisions).toEqual([2, 3]);
    const { items } = await store.list<Widget>(widgetKind, { namespace: NAMESPACE });
    expect(items.map((item) => item.metadata.name)).toEqual(['first', 'second', 'taken']);
  });

  it('answers a write and offers it to watches only once the WAL is flushed', async () => {
    const store = open();
    await store.create(widgetKind, anObject(widgetKind, 'before', { namespace: NAMESPACE }));
    const watch = new WatchReader(store.watch<Widget>(widgetKind, { namespace: NAMESPACE }));
    const flushes = holdFlushes();
    try {
      const write = store.create(widgetKind, anObject(widgetKind, 'held', { namespace: NAMESPACE }));
      const event = watch.next();
      expect(await settled(write)).toBe(false);
      expect(await settled(event)).toBe(false);
      expect(flushes.pending).toBe(1);
      flushes.release();
      expect((await write).metadata.name).toBe('held');
      expect((await event).object.metadata.name).toBe('held');
    } finally {
      flushes.restore();
      watch.stop();
    }
  });

  it('covers the commits made while a flush runs with one more flush', async () => {
    const store = open();
    await store.create(widgetKind, anObject(widgetKind, 'warm', { namespace: NAMESPACE }));
    const flushes = holdFlushes();
    try {
      const writes: Promise<unknown>[] = [];
      for (let turn = 0; turn < 5; turn += 1) {
        writes.push(store.create(widgetKind, anObject(widgetKind, `w-${turn}`, { namespace: NAMESPACE })));
        // A turn of the event loop apart: each is its own commit.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(flushes.pending).toBe(1);
      flushes.release();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(flushes.pending).toBe(1);
      flushes.release();
      await Promise.all(writes);
    } finally {
      flushes.restore();
    }
  });
});
