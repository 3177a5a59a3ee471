import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  openEmbeddedStore,
  type EmbeddedStore,
  type EmbeddedStoreOptions,
} from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import {
  anObject,
  gadgetKind,
  ownedBy,
  plateKind,
  widgetKind,
  type Widget,
} from '../fixtures/store-kinds.js';
import { summarize, WatchReader } from '../fixtures/store-watch.js';
import { describeObjectStoreContract } from './object-store.contract.js';

const KINDS = [widgetKind, gadgetKind, plateKind];
const NAMESPACE = 'store-test';

function temporaryDirectory(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cp-store-'));
}

describeObjectStoreContract('embedded SQLite', async () => {
  const dir = temporaryDirectory();
  const store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [...KINDS, EVENT_KIND] });
  return {
    store,
    type: widgetKind,
    otherType: gadgetKind,
    namespace: NAMESPACE,
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('embedded object store', () => {
  const opened: EmbeddedStore[] = [];
  const directories: string[] = [];

  function open(options: Partial<EmbeddedStoreOptions> = {}): EmbeddedStore {
    let file = options.path;
    if (!file) {
      const dir = temporaryDirectory();
      directories.push(dir);
      file = path.join(dir, 'store.db');
    }
    const store = openEmbeddedStore({ kinds: KINDS, ...options, path: file });
    opened.push(store);
    return store;
  }

  const widget = (name: string, shape: Parameters<typeof anObject>[2] = {}): Widget =>
    anObject(widgetKind, name, { namespace: NAMESPACE, ...shape });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const dir of directories.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('history', () => {
    it('answers 410 Expired to a watch from a revision older than the kept history', async () => {
      const store = open({ historyLimit: 5 });
      const created = await store.create(widgetKind, widget('compacted'));
      for (let size = 1; size <= 10; size += 1) {
        await store.patch(widgetKind, NAMESPACE, 'compacted', { spec: { size } });
      }
      const watch = new WatchReader(
        store.watch(widgetKind, {
          namespace: NAMESPACE,
          resourceVersion: created.metadata.resourceVersion ?? '',
        }),
      );
      await expect(watch.next()).rejects.toMatchObject({ reason: 'Expired', code: 410 });
    });

    it('still resumes from a revision inside the kept history', async () => {
      const store = open({ historyLimit: 5 });
      await store.create(widgetKind, widget('recent'));
      for (let size = 1; size <= 10; size += 1)
        await store.patch(widgetKind, NAMESPACE, 'recent', { spec: { size } });
      const from = String(Number(store.currentResourceVersion()) - 2);
      const watch = new WatchReader(store.watch<Widget>(widgetKind, { resourceVersion: from }));
      const events = await watch.take(2);
      watch.stop();
      expect(events.map((event) => event.object.spec?.size)).toEqual([9, 10]);
    });

    it('keeps objects, the revision and the history when the file is reopened', async () => {
      const dir = temporaryDirectory();
      directories.push(dir);
      const file = path.join(dir, 'store.db');
      const first = open({ path: file });
      const created = await first.create(widgetKind, widget('durable'));
      const modified = await first.patch<Widget>(widgetKind, NAMESPACE, 'durable', { spec: { size: 4 } });
      const revision = first.currentResourceVersion();
      await first.close();

      const second = open({ path: file });
      expect(second.currentResourceVersion()).toBe(revision);
      expect(await second.get(widgetKind, NAMESPACE, 'durable')).toEqual(modified);
      const watch = new WatchReader(
        second.watch<Widget>(widgetKind, { resourceVersion: created.metadata.resourceVersion ?? '' }),
      );
      const next = await second.create(widgetKind, widget('after-reopen'));
      expect(BigInt(next.metadata.resourceVersion ?? '')).toBe(BigInt(revision) + 1n);
      expect(summarize(await watch.take(2))).toEqual([
        ['MODIFIED', 'durable'],
        ['ADDED', 'after-reopen'],
      ]);
      watch.stop();
    });
  });

  describe('schema pruning', () => {
    it('drops fields the schema does not declare and keeps preserved ones', async () => {
      const store = open();
      const object = widget('pruned', {
        spec: { size: 1, shape: 'round', settings: { any: { nested: true } } } as Widget['spec'],
      }) as Widget & { extra?: string };
      object.extra = 'dropped';
      (object.metadata as unknown as Record<string, unknown>).colour = 'dropped';
      const created = await store.create(widgetKind, object);
      expect(created.spec).toEqual({ size: 1, settings: { any: { nested: true } } });
      expect(created).not.toHaveProperty('extra');
      expect(created.metadata).not.toHaveProperty('colour');
    });

    it('with fieldValidation Strict answers 400 naming every undeclared field and writes nothing', async () => {
      const store = open();
      const object = widget('strict', { spec: { size: 1, shape: 'round' } as Widget['spec'] });
      (object.metadata as unknown as Record<string, unknown>).colour = 'x';
      await expect(store.create(widgetKind, object, { fieldValidation: 'Strict' })).rejects.toMatchObject({
        reason: 'BadRequest',
        code: 400,
        message: expect.stringMatching(/unknown field "metadata.colour".*unknown field "spec.shape"/),
      });
      await expect(store.get(widgetKind, NAMESPACE, 'strict')).rejects.toMatchObject({ reason: 'NotFound' });
    });

    it('keeps everything for a kind without a schema', async () => {
      const store = open();
      const plate = { ...anObject(plateKind, 'free-form'), spec: { anything: ['goes', 1] } };
      expect((await store.create(plateKind, plate)).spec).toEqual({ anything: ['goes', 1] });
    });

    it('validates the status written through the status subresource', async () => {
      const store = open();
      const created = await store.create(widgetKind, widget('status-checked'));
      await expect(
        store.updateStatus(widgetKind, {
          ...created,
          status: { observedGeneration: 'one' },
        } as unknown as Widget),
      ).rejects.toMatchObject({
        reason: 'Invalid',
        details: { causes: [expect.objectContaining({ field: 'status.observedGeneration' })] },
      });
    });
  });

  describe('watch delivery', () => {
    it('sends bookmarks carrying the current revision while idle', async () => {
      const store = open({ bookmarkIntervalMs: 5 });
      await store.create(widgetKind, widget('marked'));
      const watch = new WatchReader(store.watch(widgetKind, { allowBookmarks: true }));
      const bookmark = await watch.next();
      watch.stop();
      expect(bookmark).toEqual({
        type: 'BOOKMARK',
        object: {
          apiVersion: 'test.cloudplane.dev/v1',
          kind: 'Widget',
          metadata: { resourceVersion: store.currentResourceVersion() },
        },
      });
    });

    it('ends a watch that falls too far behind with 410 Expired, without holding up writers', async () => {
      const store = open({ watchBufferLimit: 3 });
      const watch = new WatchReader(store.watch(widgetKind, {}));
      for (let index = 0; index < 5; index += 1) await store.create(widgetKind, widget(`flood-${index}`));
      await expect(watch.next()).rejects.toMatchObject({ reason: 'Expired', code: 410 });
      await expect(watch.end()).resolves.toMatchObject({ done: true });
    });

    it('delivers to each watcher its own copy', async () => {
      const store = open();
      const first = new WatchReader(store.watch<Widget>(widgetKind, {}));
      const second = new WatchReader(store.watch<Widget>(widgetKind, {}));
      await store.create(widgetKind, widget('shared', { labels: { a: 'b' } }));
      const [one] = await first.take(1);
      one!.object.metadata.labels = {};
      const [two] = await second.take(1);
      expect(two?.object.metadata.labels).toEqual({ a: 'b' });
      first.stop();
      second.stop();
    });

    it.each([
      ['a malformed revision', { resourceVersion: 'abc' }, 'BadRequest'],
      ['a malformed selector', { labelSelector: 'a in b' }, 'BadRequest'],
    ])('fails the first step for %s', async (_case, options, reason) => {
      const store = open();
      await expect(new WatchReader(store.watch(widgetKind, options)).next()).rejects.toMatchObject({
        reason,
      });
    });
  });

  describe('reads between writes', () => {
    const sizes = async (store: EmbeddedStore) =>
      (await store.list<Widget>(widgetKind, { namespace: NAMESPACE })).items.map(
        (item) => `${item.metadata.name}:${String(item.spec?.size)}`,
      );

    it('answers reads of an object and of its namespace with every write of this store in them', async () => {
      const store = open();
      const first = await store.create(widgetKind, widget('first', { spec: { size: 1 } }));
      expect(await sizes(store)).toEqual(['first:1']);
      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'first')).spec).toEqual({ size: 1 });

      const listedAt = async () =>
        Number((await store.list(widgetKind, { namespace: NAMESPACE })).resourceVersion);
      const before = await listedAt();
      await store.update(widgetKind, { ...first, spec: { size: 2 } });
      const second = await store.create(widgetKind, widget('second', { spec: { size: 3 } }));
      expect(await sizes(store)).toEqual(['first:2', 'second:3']);
      expect(await listedAt()).toBe(Number(second.metadata.resourceVersion));
      expect(await listedAt()).toBeGreaterThan(before);
      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'first')).spec).toEqual({ size: 2 });

      await store.delete(widgetKind, NAMESPACE, 'first');
      expect(await sizes(store)).toEqual(['second:3']);
      await expect(store.get(widgetKind, NAMESPACE, 'first')).rejects.toMatchObject({ reason: 'NotFound' });
    });

    it('never answers what a dry run or a refused write would have stored', async () => {
      const store = open();
      const kept = await store.create(widgetKind, widget('kept', { spec: { size: 1 } }));
      expect(await sizes(store)).toEqual(['kept:1']);
      await store.update(widgetKind, { ...kept, spec: { size: 9 } }, { dryRun: true });
      await store.create(widgetKind, widget('rehearsed'), { dryRun: true });
      await expect(
        store.update(widgetKind, {
          ...kept,
          metadata: { ...kept.metadata, resourceVersion: '999999' },
          spec: { size: 8 },
        }),
      ).rejects.toMatchObject({ reason: 'Conflict' });
      expect(await sizes(store)).toEqual(['kept:1']);
      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'kept')).spec).toEqual({ size: 1 });
    });

    it('answers its own copy: changing what a read answered changes nothing stored', async () => {
      const store = open();
      await store.create(widgetKind, widget('own', { spec: { size: 1 } }));
      (await store.get<Widget>(widgetKind, NAMESPACE, 'own')).spec = { size: 5 };
      (await store.list<Widget>(widgetKind, { namespace: NAMESPACE })).items[0]!.spec = { size: 6 };
      expect(await sizes(store)).toEqual(['own:1']);
      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'own')).spec).toEqual({ size: 1 });
    });

    it('sees what another connection to the file committed', async () => {
      const dir = temporaryDirectory();
      directories.push(dir);
      const file = path.join(dir, 'store.db');
      const store = open({ path: file });
      const other = open({ path: file });
      await store.create(widgetKind, widget('shared', { spec: { size: 1 } }));
      expect(await sizes(store)).toEqual(['shared:1']);
      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'shared')).spec).toEqual({ size: 1 });

      const seen = await other.get<Widget>(widgetKind, NAMESPACE, 'shared');
      await other.update(widgetKind, { ...seen, spec: { size: 4 } });
      await other.create(widgetKind, widget('elsewhere', { spec: { size: 7 } }));

      expect((await store.get<Widget>(widgetKind, NAMESPACE, 'shared')).spec).toEqual({ size: 4 });
      expect(await sizes(store)).toEqual(['elsewhere:7', 'shared:4']);
    });
  });

  describe('requests outside the contract', () => {
    it('answers 404 "the server could not find the requested resource" for a kind it does not serve', async () => {
      const store = open({ kinds: [widgetKind] });
      const message = 'the server could not find the requested resource';
      await expect(
        store.create(gadgetKind, anObject(gadgetKind, 'g', { namespace: NAMESPACE })),
      ).rejects.toMatchObject({ reason: 'NotFound', code: 404, message });
      await expect(new WatchReader(store.watch(gadgetKind)).next()).rejects.toMatchObject({
        reason: 'NotFound',
      });
    });

    it('answers 422 naming metadata.namespace when a namespaced object has none', async () => {
      const store = open();
      await expect(store.create(widgetKind, anObject(widgetKind, 'homeless'))).rejects.toMatchObject({
        reason: 'Invalid',
        details: { causes: [expect.objectContaining({ field: 'metadata.namespace' })] },
      });
    });

    it('stores cluster-scoped objects without a namespace', async () => {
      const store = open();
      const created = await store.create(plateKind, anObject(plateKind, 'global', { namespace: 'ignored' }));
      expect(created.metadata.namespace).toBeUndefined();
      expect(await store.get(plateKind, undefined, 'global')).toEqual(created);
    });

    it('accepts an update without resourceVersion as unconditional', async () => {
      const store = open();
      const created = await store.create(widgetKind, widget('unconditional'));
      const { resourceVersion: _rv, ...metadata } = created.metadata;
      const updated = await store.update(widgetKind, { ...created, metadata, spec: { size: 6 } });
      expect(updated.spec).toEqual({ size: 6 });
    });

    it('answers a dry-run create without resourceVersion and leaves the revision alone', async () => {
      const store = open();
      const before = store.currentResourceVersion();
      const answered = await store.create(widgetKind, widget('rehearsed'), { dryRun: true });
      expect(answered.metadata.resourceVersion).toBeUndefined();
      expect(store.currentResourceVersion()).toBe(before);
    });

    it('bumps generation once when deletion starts, so controllers see the change of intent', async () => {
      const store = open();
      await store.create(widgetKind, widget('intent', { finalizers: ['test.cloudplane.dev/hold'] }));
      const marked = await store.delete<Widget>(widgetKind, NAMESPACE, 'intent');
      const again = await store.delete<Widget>(widgetKind, NAMESPACE, 'intent');
      expect(marked.metadata.generation).toBe(2);
      expect(again.metadata.generation).toBe(2);
    });

    it('removes a whole ownership chain in one write', async () => {
      const store = open();
      const root = await store.create(widgetKind, widget('root'));
      const middle = await store.create(
        gadgetKind,
        anObject(gadgetKind, 'middle', { namespace: NAMESPACE, ownerReferences: [ownedBy(root)] }),
      );
      await store.create(widgetKind, widget('leaf', { ownerReferences: [ownedBy(middle)] }));
      await store.delete(widgetKind, NAMESPACE, 'root');
      const left = await Promise.all(
        [
          [widgetKind, 'root'],
          [gadgetKind, 'middle'],
          [widgetKind, 'leaf'],
        ].map(([kind, name]) =>
          store
            .get(kind as typeof widgetKind, NAMESPACE, name as string)
            .catch((error: { reason: string }) => error.reason),
        ),
      );
      expect(left).toEqual(['NotFound', 'NotFound', 'NotFound']);
    });

    it('ends its watches and answers 503 once closed', async () => {
      const store = open();
      const watch = new WatchReader(store.watch(widgetKind, {}));
      const ended = watch.end();
      await store.close();
      await expect(ended).resolves.toMatchObject({ done: true });
      await expect(store.get(widgetKind, NAMESPACE, 'x')).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
        code: 503,
      });
    });

    it('answers a 400 BadRequest for a body that is not an object', async () => {
      const store = open();
      await expect(store.create(widgetKind, 'nonsense' as unknown as KubeObject)).rejects.toMatchObject({
        reason: 'BadRequest',
      });
    });
  });
});
