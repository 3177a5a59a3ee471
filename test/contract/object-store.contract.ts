import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import { StoreEventRecorder } from '../../controllers/runtime/event-recorder.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import { anObject, ownedBy, type Widget, type WidgetShape } from '../fixtures/store-kinds.js';
import { revisionOf, summarize, WatchReader } from '../fixtures/store-watch.js';

/**
 * What every ObjectStore backend must do, through the interface only. `type` and `otherType` are
 * two namespaced kinds with the Widget schema of test/fixtures/store-kinds.ts (spec.size an
 * integer ≥ 0, spec.color one of red, green, blue) and the status subresource; `namespace`
 * exists. The store also serves core v1 Events (`EVENT_KIND`), which the controllers' event
 * recorder writes. Cases use unique names and labels, so a shared, long-lived backend can run them.
 */
export interface ObjectStoreFixture {
  store: ObjectStore;
  type: ResourceType;
  otherType: ResourceType;
  namespace: string;
  cleanup(): Promise<void>;
}

const STALE = 'the object has been modified; please apply your changes to the latest version and try again';

export function describeObjectStoreContract(name: string, setup: () => Promise<ObjectStoreFixture>): void {
  describe(`ObjectStore contract: ${name}`, () => {
    let fixture: ObjectStoreFixture;
    let store: ObjectStore;
    let type: ResourceType;
    let otherType: ResourceType;
    let namespace: string;

    beforeAll(async () => {
      fixture = await setup();
      ({ store, type, otherType, namespace } = fixture);
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;
    const widget = (shape: WidgetShape = {}, prefix = 'widget'): Widget =>
      anObject(type, unique(prefix), { namespace, ...shape });
    const create = (shape: WidgetShape = {}): Promise<Widget> => store.create(type, widget(shape));
    const get = (object: KubeObject, kind: ResourceType = type): Promise<Widget> =>
      store.get<Widget>(kind, object.metadata.namespace, object.metadata.name);
    const watchFrom = (
      kind: ResourceType,
      resourceVersion: string,
      labelSelector?: string,
    ): WatchReader<Widget> => {
      const options: { namespace: string; resourceVersion: string; labelSelector?: string } = {
        namespace,
        resourceVersion,
      };
      if (labelSelector !== undefined) options.labelSelector = labelSelector;
      return new WatchReader(store.watch<Widget>(kind, options));
    };
    const revisionNow = async (): Promise<string> =>
      (await store.list(type, { namespace, limit: 1 })).resourceVersion;

    describe('create', () => {
      it('assigns uid, creationTimestamp, generation 1 and a resourceVersion, and get answers the same object', async () => {
        const created = await create({ spec: { size: 3, color: 'green' } });
        expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
        expect(Date.parse(created.metadata.creationTimestamp ?? '')).not.toBeNaN();
        expect(created.metadata.generation).toBe(1);
        expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
        expect(created.spec).toEqual({ size: 3, color: 'green' });
        expect(await get(created)).toEqual(created);
      });

      it('drops the status given at create: the status subresource owns it', async () => {
        const created = await create({ status: { phase: 'Ready' } });
        expect(created.status).toBeUndefined();
        expect((await get(created)).status).toBeUndefined();
      });

      it('answers 409 AlreadyExists naming the object when the name is taken', async () => {
        const first = await create();
        const again = anObject(type, first.metadata.name, { namespace });
        await expect(store.create(type, again)).rejects.toMatchObject({
          reason: 'AlreadyExists',
          code: 409,
          message: expect.stringContaining(`"${first.metadata.name}" already exists`),
        });
      });

      it.each([
        ['upper case', 'Widget-A'],
        ['an underscore', 'widget_a'],
        ['a leading dash', '-widget'],
        ['more than 253 characters', `w${'a'.repeat(253)}`],
      ])('answers 422 naming metadata.name for a name with %s', async (_case, badName) => {
        await expect(store.create(type, anObject(type, badName, { namespace }))).rejects.toMatchObject({
          reason: 'Invalid',
          code: 422,
          details: { causes: expect.arrayContaining([expect.objectContaining({ field: 'metadata.name' })]) },
        });
      });

      it.each([
        ['spec.size', { size: -1, color: 'red' }],
        ['spec.size', { size: 'large' as unknown as number, color: 'red' }],
        ['spec.color', { size: 1, color: 'purple' }],
      ])('answers 422 naming %s when the schema refuses it, and writes nothing', async (field, spec) => {
        const object = widget({ spec });
        await expect(store.create(type, object)).rejects.toMatchObject({
          reason: 'Invalid',
          code: 422,
          details: { causes: expect.arrayContaining([expect.objectContaining({ field })]) },
        });
        await expect(get(object)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('names every invalid field at once', async () => {
        const error: unknown = await store
          .create(type, widget({ spec: { size: -1, color: 'purple' } }))
          .catch((e) => e);
        const fields = (error as { details: { causes: { field: string }[] } }).details.causes.map(
          (c) => c.field,
        );
        expect(fields).toEqual(expect.arrayContaining(['spec.size', 'spec.color']));
      });

      it('makes a unique name from metadata.generateName', async () => {
        const object = anObject(type, '', { namespace });
        object.metadata = { generateName: 'gen-', namespace } as unknown as Widget['metadata'];
        const [first, second] = await Promise.all([store.create(type, object), store.create(type, object)]);
        expect(first?.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
        expect(second?.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
        expect(first?.metadata.name).not.toBe(second?.metadata.name);
      });

      it('with dryRun answers the would-be object and writes nothing', async () => {
        const object = widget();
        const answered = await store.create(type, object, { dryRun: true });
        expect(answered.metadata.name).toBe(object.metadata.name);
        expect(answered.metadata.uid).toBeTruthy();
        await expect(get(object)).rejects.toMatchObject({ reason: 'NotFound', code: 404 });
      });

      it('gives every write one strictly increasing resourceVersion shared by all kinds', async () => {
        const first = await create();
        const other = await store.create(otherType, anObject(otherType, unique('gadget'), { namespace }));
        const third = await create();
        expect(revisionOf(other)).toBeGreaterThan(revisionOf(first));
        expect(revisionOf(third)).toBeGreaterThan(revisionOf(other));
      });
    });

    describe('get', () => {
      it('answers 404 NotFound naming the object', async () => {
        await expect(store.get(type, namespace, 'no-such-widget')).rejects.toMatchObject({
          reason: 'NotFound',
          code: 404,
          message: expect.stringContaining('"no-such-widget" not found'),
        });
      });

      it('hands out copies: changing an answer changes nothing stored', async () => {
        const created = await create({ labels: { keep: 'yes' } });
        const fetched = await get(created);
        fetched.metadata.labels = { keep: 'no' };
        expect((await get(created)).metadata.labels).toEqual({ keep: 'yes' });
      });
    });

    describe('update', () => {
      it('replaces the spec, bumps generation and resourceVersion', async () => {
        const created = await create();
        const updated = await store.update(type, { ...created, spec: { size: 7, color: 'blue' } });
        expect(updated.spec).toEqual({ size: 7, color: 'blue' });
        expect(updated.metadata.generation).toBe(2);
        expect(revisionOf(updated)).toBeGreaterThan(revisionOf(created));
        expect(await get(created)).toEqual(updated);
      });

      it('keeps generation when only metadata changes', async () => {
        const created = await create();
        const updated = await store.update(type, {
          ...created,
          metadata: { ...created.metadata, labels: { tier: 'gold' }, annotations: { note: 'x' } },
        });
        expect(updated.metadata.labels).toEqual({ tier: 'gold' });
        expect(updated.metadata.generation).toBe(1);
        expect(revisionOf(updated)).toBeGreaterThan(revisionOf(created));
      });

      it('ignores status in the body: only the status subresource writes it', async () => {
        const created = await create();
        const withStatus = await store.updateStatus(type, { ...created, status: { phase: 'Ready' } });
        const updated = await store.update(type, {
          ...withStatus,
          spec: { size: 2 },
          status: { phase: 'Failed' },
        });
        expect(updated.status).toEqual({ phase: 'Ready' });
      });

      it('answers 409 Conflict for a stale resourceVersion and keeps the newer object', async () => {
        const created = await create();
        const newer = await store.update(type, { ...created, spec: { size: 2 } });
        await expect(store.update(type, { ...created, spec: { size: 3 } })).rejects.toMatchObject({
          reason: 'Conflict',
          code: 409,
          message: expect.stringContaining(STALE),
        });
        expect(await get(created)).toEqual(newer);
      });

      it('answers 404 for an object that does not exist', async () => {
        const created = await create();
        await store.delete(type, namespace, created.metadata.name);
        await expect(
          store.update(type, { ...created, metadata: { ...created.metadata } }),
        ).rejects.toMatchObject({
          reason: 'NotFound',
          code: 404,
        });
      });

      it('answers 409 for a body naming a different uid', async () => {
        const created = await create();
        const changed = {
          ...created,
          metadata: { ...created.metadata, uid: '00000000-0000-4000-8000-000000000000' },
        };
        await expect(store.update(type, changed)).rejects.toMatchObject({ code: 409 });
      });

      it('keeps creationTimestamp whatever the client sends', async () => {
        const created = await create();
        const updated = await store.update(type, {
          ...created,
          metadata: { ...created.metadata, creationTimestamp: '2001-01-01T00:00:00Z' },
          spec: { size: 9 },
        });
        expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      });

      it('changes nothing for an update that changes nothing: same resourceVersion', async () => {
        const created = await create({ labels: { a: 'b' } });
        const again = await store.update(type, await get(created));
        expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      });

      it('with dryRun answers the would-be object and stores nothing', async () => {
        const created = await create();
        const answered = await store.update(type, { ...created, spec: { size: 5 } }, { dryRun: true });
        expect(answered.spec).toEqual({ size: 5 });
        expect(await get(created)).toEqual(created);
      });

      it('answers 422 naming the field when the schema refuses the new spec', async () => {
        const created = await create();
        await expect(store.update(type, { ...created, spec: { size: -5 } })).rejects.toMatchObject({
          reason: 'Invalid',
          details: { causes: expect.arrayContaining([expect.objectContaining({ field: 'spec.size' })]) },
        });
        expect(await get(created)).toEqual(created);
      });
    });

    describe('updateStatus', () => {
      it('replaces only the status: spec and generation stay, resourceVersion moves', async () => {
        const created = await create({ spec: { size: 1 } });
        const updated = await store.updateStatus(type, {
          ...created,
          spec: { size: 99 },
          status: { phase: 'Ready', observedGeneration: 1 },
        });
        expect(updated.status).toEqual({ phase: 'Ready', observedGeneration: 1 });
        expect(updated.spec).toEqual({ size: 1 });
        expect(updated.metadata.generation).toBe(1);
        expect(revisionOf(updated)).toBeGreaterThan(revisionOf(created));
      });

      it('answers 409 Conflict for a stale resourceVersion', async () => {
        const created = await create();
        await store.update(type, { ...created, spec: { size: 4 } });
        await expect(
          store.updateStatus(type, { ...created, status: { phase: 'Ready' } }),
        ).rejects.toMatchObject({
          reason: 'Conflict',
          code: 409,
        });
      });
    });

    describe('patch', () => {
      it('merges an RFC 7386 patch: objects merge, null deletes a key', async () => {
        const created = await create({
          labels: { a: '1', b: '2' },
          spec: { size: 1, color: 'red', note: 'n' },
        });
        const patched = await store.patch<Widget>(type, namespace, created.metadata.name, {
          metadata: { labels: { b: null, c: '3' } },
          spec: { color: null, size: 4 },
        });
        expect(patched.metadata.labels).toEqual({ a: '1', c: '3' });
        expect(patched.spec).toEqual({ size: 4, note: 'n' });
        expect(patched.metadata.generation).toBe(2);
      });

      it('ignores status in a patch of the main resource', async () => {
        const created = await create();
        const patched = await store.patch<Widget>(type, namespace, created.metadata.name, {
          spec: { size: 2 },
          status: { phase: 'Ready' },
        });
        expect(patched.status).toBeUndefined();
      });

      it('patches only the status through the status subresource', async () => {
        const created = await create();
        const patched = await store.patch<Widget>(
          type,
          namespace,
          created.metadata.name,
          { spec: { size: 50 }, status: { phase: 'Ready' } },
          { subresource: 'status' },
        );
        expect(patched.status).toEqual({ phase: 'Ready' });
        expect(patched.spec).toEqual(created.spec);
        expect(patched.metadata.generation).toBe(1);
      });

      it('answers 409 when the patch carries a stale resourceVersion', async () => {
        const created = await create();
        await store.patch(type, namespace, created.metadata.name, { spec: { size: 2 } });
        await expect(
          store.patch(type, namespace, created.metadata.name, {
            metadata: { resourceVersion: created.metadata.resourceVersion },
            spec: { size: 3 },
          }),
        ).rejects.toMatchObject({ reason: 'Conflict', code: 409 });
      });

      it('answers 422 naming the field when the patched object breaks the schema', async () => {
        const created = await create();
        await expect(
          store.patch(type, namespace, created.metadata.name, { spec: { color: 'purple' } }),
        ).rejects.toMatchObject({
          reason: 'Invalid',
          details: { causes: expect.arrayContaining([expect.objectContaining({ field: 'spec.color' })]) },
        });
      });

      it('answers 404 for an object that does not exist', async () => {
        await expect(
          store.patch(type, namespace, 'no-such-widget', { spec: { size: 1 } }),
        ).rejects.toMatchObject({
          reason: 'NotFound',
          code: 404,
        });
      });
    });

    describe('list', () => {
      it('lists a namespace or all namespaces, only of the kind asked for', async () => {
        const run = unique('run');
        const mine = await create({ labels: { run } });
        await store.create(otherType, anObject(otherType, unique('gadget'), { namespace, labels: { run } }));
        const inNamespace = await store.list(type, { namespace, labelSelector: `run=${run}` });
        const everywhere = await store.list(type, { labelSelector: `run=${run}` });
        const elsewhere = await store.list(type, {
          namespace: `${namespace}-empty`,
          labelSelector: `run=${run}`,
        });
        expect(inNamespace.items).toEqual([mine]);
        expect(everywhere.items).toEqual([mine]);
        expect(elsewhere.items).toEqual([]);
      });

      it('answers the store revision at read time: at least the last write', async () => {
        const created = await create();
        const list = await store.list(type, { namespace, limit: 1 });
        expect(BigInt(list.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(created));
      });

      describe('label selectors', () => {
        const run = `sel-${randomBytes(4).toString('hex')}`;
        const labelled: Record<string, Record<string, string>> = {
          a: { run, tier: 'gold', zone: 'east', rank: '3' },
          b: { run, tier: 'silver', zone: 'west', rank: '7' },
          c: { run, tier: 'gold' },
          d: { run },
        };
        const names: Record<string, string> = {};

        beforeAll(async () => {
          for (const [key, labels] of Object.entries(labelled)) {
            names[key] = (await create({ labels })).metadata.name;
          }
        });

        it.each([
          ['tier=gold', ['a', 'c']],
          ['tier==gold', ['a', 'c']],
          ['tier!=gold', ['b', 'd']],
          ['tier in (gold,silver)', ['a', 'b', 'c']],
          ['tier notin (gold)', ['b', 'd']],
          ['zone', ['a', 'b']],
          ['!zone', ['c', 'd']],
          ['tier=gold,zone', ['a']],
          ['tier=gold,!zone', ['c']],
          ['zone in (east), tier != silver', ['a']],
          ['rank>5', ['b']],
          ['rank<5', ['a']],
        ])('%s selects %j', async (selector, expected) => {
          const list = await store.list(type, { namespace, labelSelector: `run=${run},${selector}` });
          const keys = list.items.map((item) =>
            Object.keys(names).find((key) => names[key] === item.metadata.name),
          );
          expect(keys.sort()).toEqual(expected);
        });
      });

      it.each(['tier in gold', 'tier in (gold', '!', 'a b', 'tier=gold,', 'bad key!=x', '=gold'])(
        'answers 400 BadRequest for the malformed selector %j',
        async (selector) => {
          await expect(store.list(type, { namespace, labelSelector: selector })).rejects.toMatchObject({
            reason: 'BadRequest',
            code: 400,
          });
        },
      );

      it('pages with limit and continue in namespace/name order until no token remains', async () => {
        const run = unique('page');
        const created = [];
        for (let index = 0; index < 5; index += 1) created.push(await create({ labels: { run } }));
        const expected = created.map((item) => item.metadata.name).sort();
        const seen: string[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const options: { namespace: string; labelSelector: string; limit: number; continue?: string } = {
            namespace,
            labelSelector: `run=${run}`,
            limit: 2,
          };
          if (token) options.continue = token;
          const page = await store.list(type, options);
          expect(page.items.length).toBeLessThanOrEqual(2);
          seen.push(...page.items.map((item) => item.metadata.name));
          token = page.continue;
          pages += 1;
        } while (token && pages < 10);
        expect(seen).toEqual(expected);
        expect(pages).toBeGreaterThanOrEqual(3);
      });

      it('answers 400 for a continue token it did not issue', async () => {
        await expect(
          store.list(type, { namespace, limit: 1, continue: 'not-a-token' }),
        ).rejects.toMatchObject({
          reason: 'BadRequest',
          code: 400,
        });
      });
    });

    describe('delete', () => {
      it('removes an object without finalizers and answers its last state', async () => {
        const created = await create();
        const answered = await store.delete<Widget>(type, namespace, created.metadata.name);
        expect(answered.metadata.uid).toBe(created.metadata.uid);
        await expect(get(created)).rejects.toMatchObject({ reason: 'NotFound', code: 404 });
      });

      it('answers 404 for an object that does not exist', async () => {
        await expect(store.delete(type, namespace, 'no-such-widget')).rejects.toMatchObject({
          reason: 'NotFound',
          code: 404,
        });
      });

      it('marks an object with finalizers and keeps it until an update removes the last one', async () => {
        const created = await create({
          finalizers: ['test.cloudplane.dev/hold', 'test.cloudplane.dev/second'],
        });
        const marked = await store.delete<Widget>(type, namespace, created.metadata.name);
        expect(marked.metadata.deletionTimestamp).toBeTruthy();
        expect(revisionOf(marked)).toBeGreaterThan(revisionOf(created));
        const stored = await get(created);
        expect(stored.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);

        const again = await store.delete<Widget>(type, namespace, created.metadata.name);
        expect(again.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);

        const one = await store.update(type, {
          ...stored,
          metadata: { ...stored.metadata, finalizers: ['test.cloudplane.dev/second'] },
        });
        expect((await get(created)).metadata.finalizers).toEqual(['test.cloudplane.dev/second']);
        await store.update(type, { ...one, metadata: { ...one.metadata, finalizers: [] } });
        await expect(get(created)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('removes a marked object when a patch drops its last finalizer', async () => {
        const created = await create({ finalizers: ['test.cloudplane.dev/hold'] });
        await store.delete(type, namespace, created.metadata.name);
        await store.patch(type, namespace, created.metadata.name, { metadata: { finalizers: null } });
        await expect(get(created)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('answers 422 when a finalizer is added to an object being deleted', async () => {
        const created = await create({ finalizers: ['test.cloudplane.dev/hold'] });
        const marked = await store.delete<Widget>(type, namespace, created.metadata.name);
        await expect(
          store.update(type, {
            ...marked,
            metadata: {
              ...marked.metadata,
              finalizers: ['test.cloudplane.dev/hold', 'test.cloudplane.dev/new'],
            },
          }),
        ).rejects.toMatchObject({ reason: 'Invalid', code: 422 });
        await store.patch(type, namespace, created.metadata.name, { metadata: { finalizers: null } });
      });

      it('cannot be undone: an update without deletionTimestamp keeps it', async () => {
        const created = await create({ finalizers: ['test.cloudplane.dev/hold'] });
        const marked = await store.delete<Widget>(type, namespace, created.metadata.name);
        const { deletionTimestamp: _dropped, ...metadata } = marked.metadata;
        const unmarked: Widget = { ...marked, metadata, spec: { size: 8 } };
        const updated = await store.update(type, unmarked);
        expect(updated.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
        await store.patch(type, namespace, created.metadata.name, { metadata: { finalizers: null } });
      });

      it.each([
        ['uid', { uid: '00000000-0000-4000-8000-000000000000' }],
        ['resourceVersion', { resourceVersion: '1' }],
      ])(
        'answers 409 when the %s precondition does not hold, and keeps the object',
        async (_field, preconditions) => {
          const created = await create();
          await expect(
            store.delete(type, namespace, created.metadata.name, { preconditions }),
          ).rejects.toMatchObject({
            reason: 'Conflict',
            code: 409,
          });
          expect(await get(created)).toEqual(created);
        },
      );

      it('deletes when the preconditions hold', async () => {
        const created = await create();
        const { uid, resourceVersion } = created.metadata;
        await store.delete(type, namespace, created.metadata.name, {
          preconditions: { uid, resourceVersion },
        });
        await expect(get(created)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('with dryRun answers and keeps the object', async () => {
        const created = await create();
        await store.delete(type, namespace, created.metadata.name, { dryRun: true });
        expect(await get(created)).toEqual(created);
      });
    });

    describe('owner references', () => {
      const dependentOf = (owner: Widget, shape: WidgetShape = {}, block = false): Promise<Widget> =>
        store.create(
          otherType,
          anObject(otherType, unique('gadget'), {
            namespace,
            spec: { size: 1 },
            ownerReferences: [ownedBy(owner, { blockOwnerDeletion: block })],
            ...shape,
          }),
        );

      it('removes dependents of any kind when the owner is removed', async () => {
        const owner = await create();
        const dependent = await dependentOf(owner);
        const watch = watchFrom(otherType, dependent.metadata.resourceVersion ?? '');
        await store.delete(type, namespace, owner.metadata.name);
        await watch.until(
          (event) => event.type === 'DELETED' && event.object.metadata.name === dependent.metadata.name,
        );
        watch.stop();
        await expect(get(dependent, otherType)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('marks a dependent that has finalizers and leaves it for its finalizer', async () => {
        const owner = await create();
        const dependent = await dependentOf(owner, { finalizers: ['test.cloudplane.dev/hold'] });
        const watch = watchFrom(otherType, dependent.metadata.resourceVersion ?? '');
        await store.delete(type, namespace, owner.metadata.name);
        const marked = await watch.until((event) => event.object.metadata.name === dependent.metadata.name);
        watch.stop();
        expect(marked.type).toBe('MODIFIED');
        expect(marked.object.metadata.deletionTimestamp).toBeTruthy();
        await store.patch(otherType, namespace, dependent.metadata.name, { metadata: { finalizers: null } });
        await expect(get(dependent, otherType)).rejects.toMatchObject({ reason: 'NotFound' });
      });

      it('with Orphan keeps the dependents and drops their reference to the owner', async () => {
        const owner = await create();
        const dependent = await dependentOf(owner);
        const watch = watchFrom(otherType, dependent.metadata.resourceVersion ?? '');
        await store.delete(type, namespace, owner.metadata.name, { propagationPolicy: 'Orphan' });
        const orphaned = await watch.until(
          (event) =>
            event.object.metadata.name === dependent.metadata.name && !event.object.metadata.ownerReferences,
        );
        watch.stop();
        expect(orphaned.type).toBe('MODIFIED');
        expect((await get(dependent, otherType)).metadata.ownerReferences).toBeUndefined();
      });

      it('keeps a dependent that has another owner, without the reference to the removed one', async () => {
        const owner = await create();
        const otherOwner = await create();
        const dependent = await store.create(
          otherType,
          anObject(otherType, unique('gadget'), {
            namespace,
            spec: { size: 1 },
            ownerReferences: [ownedBy(owner), ownedBy(otherOwner)],
          }),
        );
        const watch = watchFrom(otherType, dependent.metadata.resourceVersion ?? '');
        await store.delete(type, namespace, owner.metadata.name);
        const changed = await watch.until((event) => event.object.metadata.name === dependent.metadata.name);
        watch.stop();
        expect(changed.type).toBe('MODIFIED');
        expect(changed.object.metadata.ownerReferences?.map((reference) => reference.uid)).toEqual([
          otherOwner.metadata.uid,
        ]);
      });

      it('in the foreground keeps the owner until its blocking dependents are gone', async () => {
        const owner = await create();
        const dependent = await dependentOf(owner, { finalizers: ['test.cloudplane.dev/hold'] }, true);
        const watch = watchFrom(type, dependent.metadata.resourceVersion ?? '');
        const marked = await store.delete<Widget>(type, namespace, owner.metadata.name, {
          propagationPolicy: 'Foreground',
        });
        expect(marked.metadata.deletionTimestamp).toBeTruthy();
        expect(marked.metadata.finalizers).toContain('foregroundDeletion');
        await watch.until(
          (event) => event.object.metadata.name === owner.metadata.name && event.type === 'MODIFIED',
        );
        const heldDependent = await get(dependent, otherType);
        expect(heldDependent.metadata.deletionTimestamp).toBeTruthy();
        expect((await get(owner)).metadata.deletionTimestamp).toBeTruthy();

        await store.patch(otherType, namespace, dependent.metadata.name, { metadata: { finalizers: null } });
        await watch.until(
          (event) => event.object.metadata.name === owner.metadata.name && event.type === 'DELETED',
        );
        watch.stop();
        await expect(get(owner)).rejects.toMatchObject({ reason: 'NotFound' });
      });
    });

    describe('watch', () => {
      it('from a list resourceVersion delivers ADDED, MODIFIED and DELETED in order', async () => {
        const run = unique('w');
        const start = await store.list(type, { namespace, labelSelector: `run=${run}` });
        const watch = watchFrom(type, start.resourceVersion, `run=${run}`);
        const created = await create({ labels: { run } });
        const updated = await store.update(type, { ...created, spec: { size: 2 } });
        await store.delete(type, namespace, created.metadata.name);
        const events = await watch.take(3);
        watch.stop();
        expect(summarize(events)).toEqual([
          ['ADDED', created.metadata.name],
          ['MODIFIED', created.metadata.name],
          ['DELETED', created.metadata.name],
        ]);
        expect(events[1]?.object).toEqual(updated);
        expect(revisionOf(events[2]!.object)).toBeGreaterThan(revisionOf(updated));
      });

      it('resumes from an older resourceVersion with every change after it', async () => {
        const run = unique('w');
        const first = await create({ labels: { run } });
        const modified = await store.update(type, { ...first, spec: { size: 3 } });
        const second = await create({ labels: { run } });
        const watch = watchFrom(type, first.metadata.resourceVersion ?? '', `run=${run}`);
        const events = await watch.take(2);
        watch.stop();
        expect(summarize(events)).toEqual([
          ['MODIFIED', first.metadata.name],
          ['ADDED', second.metadata.name],
        ]);
        expect(events[0]?.object).toEqual(modified);
      });

      it('with resourceVersion "0" starts with ADDED for every current object', async () => {
        const run = unique('w');
        const one = await create({ labels: { run } });
        const two = await create({ labels: { run } });
        const watch = watchFrom(type, '0', `run=${run}`);
        const events = await watch.take(2);
        const three = await create({ labels: { run } });
        const live = await watch.take(1);
        watch.stop();
        expect(events.every((event) => event.type === 'ADDED')).toBe(true);
        expect(events.map((event) => event.object.metadata.name).sort()).toEqual(
          [one.metadata.name, two.metadata.name].sort(),
        );
        expect(summarize(live)).toEqual([['ADDED', three.metadata.name]]);
      });

      it('filters by label selector: leaving the selection is DELETED, entering it is ADDED', async () => {
        const run = unique('w');
        const created = await create({ labels: { run, tier: 'gold' } });
        const watch = watchFrom(type, created.metadata.resourceVersion ?? '', `run=${run},tier=gold`);
        const silver = await store.patch<Widget>(type, namespace, created.metadata.name, {
          metadata: { labels: { tier: 'silver' } },
        });
        await store.patch(type, namespace, created.metadata.name, { spec: { size: 5 } });
        await store.patch(type, namespace, created.metadata.name, { metadata: { labels: { tier: 'gold' } } });
        const events = await watch.take(2);
        watch.stop();
        expect(summarize(events)).toEqual([
          ['DELETED', created.metadata.name],
          ['ADDED', created.metadata.name],
        ]);
        expect(events[0]?.object.metadata.labels?.tier).toBe(silver.metadata.labels?.tier);
      });

      it('reports a finalizer-held deletion as MODIFIED, then DELETED when released', async () => {
        const created = await create({ finalizers: ['test.cloudplane.dev/hold'] });
        const watch = watchFrom(type, created.metadata.resourceVersion ?? '');
        await store.delete(type, namespace, created.metadata.name);
        await store.patch(type, namespace, created.metadata.name, { metadata: { finalizers: null } });
        const events = await watch.until((event) => event.object.metadata.name === created.metadata.name);
        const last = await watch.until((event) => event.object.metadata.name === created.metadata.name);
        watch.stop();
        expect(events.type).toBe('MODIFIED');
        expect(events.object.metadata.deletionTimestamp).toBeTruthy();
        expect(last.type).toBe('DELETED');
        expect(last.object.metadata.finalizers ?? []).toEqual([]);
      });

      it('ends the iteration cleanly on stop()', async () => {
        const watch = watchFrom(type, await revisionNow());
        const ended = watch.end();
        watch.stop();
        await expect(ended).resolves.toMatchObject({ done: true });
      });
    });

    describe('events, as the controllers’ recorder writes them', () => {
      it('writes the first occurrence as a core v1 Event and counts repeats on it, found by involvedObject', async () => {
        const subject = await create();
        const clock = new FakeClock('2026-03-01T10:00:00Z');
        const recorder = new StoreEventRecorder({
          store,
          clock,
          logger: capturedLogger().logger,
          component: 'contract-test',
          instance: 'here',
        });
        recorder.warning(subject, 'SizeUnavailable', 'no size 3 is offered; pick 1 or 2');
        await clock.advance(2000);
        recorder.warning(subject, 'SizeUnavailable', 'no size 3 is offered; pick 1 or 2');
        recorder.normal(subject, 'Created', 'the widget exists');
        await recorder.flush();
        const events = (await store.list(EVENT_KIND, { namespace })).items as unknown as CoreEvent[];
        const about = events
          .filter((event) => event.involvedObject.uid === subject.metadata.uid)
          .map((event) => ({
            type: event.type,
            reason: event.reason,
            count: event.count,
            firstTimestamp: event.firstTimestamp,
            lastTimestamp: event.lastTimestamp,
            kind: event.involvedObject.kind,
            name: event.involvedObject.name,
          }))
          .sort((a, b) => (a.reason ?? '').localeCompare(b.reason ?? ''));
        expect(about).toEqual([
          {
            type: 'Normal',
            reason: 'Created',
            count: 1,
            firstTimestamp: '2026-03-01T10:00:02.000Z',
            lastTimestamp: '2026-03-01T10:00:02.000Z',
            kind: type.kind,
            name: subject.metadata.name,
          },
          {
            type: 'Warning',
            reason: 'SizeUnavailable',
            count: 2,
            firstTimestamp: '2026-03-01T10:00:00.000Z',
            lastTimestamp: '2026-03-01T10:00:02.000Z',
            kind: type.kind,
            name: subject.metadata.name,
          },
        ]);
      });
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
