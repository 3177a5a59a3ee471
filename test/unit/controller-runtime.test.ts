import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { Informer } from '../../control-plane/informer.js';
import type { KubeObject, ObjectStore, Watch, WatchOptions } from '../../control-plane/types.js';
import { openEmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { createMetrics, type Metrics } from '../../observability/metrics.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { eventually } from '../fixtures/eventually.js';
import { FakeClock } from '../fixtures/fake-clock.js';
import { GADGET, GADGET_PART, gadget, gadgetController, type Gadget } from '../fixtures/gadget-controller.js';

async function counter(metrics: Metrics, result: string): Promise<number> {
  const metric = await metrics.reconcileTotal.get();
  return (
    metric.values.find((value) => value.labels.result === result && value.labels.kind === 'Gadget')?.value ??
    0
  );
}

describe('controller runtime, end to end on the embedded store', () => {
  let dir: string;
  let store: ObjectStore;
  let clock: FakeClock;
  let metrics: Metrics;
  let runner: ControllerRunner;
  let controller: ReturnType<typeof gadgetController>;
  let lines: Record<string, unknown>[];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-runtime-'));
    store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [GADGET, GADGET_PART] });
    clock = new FakeClock();
    metrics = createMetrics({ processMetrics: false });
    const captured = capturedLogger();
    lines = captured.lines;
    runner = new ControllerRunner({ store, logger: captured.logger, metrics, clock });
    controller = gadgetController();
    runner.register(controller);
    await runner.start();
  });

  afterEach(async () => {
    await runner.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const readGadget = (name: string) => store.get<Gadget>(GADGET, 'default', name);
  const partNames = async (name: string) =>
    (await store.list(GADGET_PART, { namespace: 'default', labelSelector: `gadget=${name}` })).items
      .map((part) => part.metadata.name)
      .sort();

  it('converges a new object: creates its children and reports Ready for its generation', async () => {
    await store.create(GADGET, gadget('alpha', { parts: 2 }));
    const ready = await eventually(async () => {
      const current = await readGadget('alpha');
      expect(current.status?.conditions?.[0]).toMatchObject({
        type: 'Ready',
        status: 'True',
        observedGeneration: 1,
      });
      return current;
    });
    expect(ready.status?.readyParts).toBe(2);
    expect(await partNames('alpha')).toEqual(['alpha-part-0', 'alpha-part-1']);
  });

  it('follows a spec change to the new generation', async () => {
    await store.create(GADGET, gadget('beta', { parts: 1 }));
    await eventually(async () => expect((await readGadget('beta')).status?.observedGeneration).toBe(1));
    await store.patch(GADGET, 'default', 'beta', { spec: { parts: 3 } });
    await eventually(async () => {
      const current = await readGadget('beta');
      expect(current.metadata.generation).toBe(2);
      expect(current.status?.observedGeneration).toBe(2);
    });
    expect(await partNames('beta')).toHaveLength(3);
  });

  it('recreates an owned child that was deleted (Owns wakes the owner)', async () => {
    await store.create(GADGET, gadget('gamma', { parts: 2 }));
    await eventually(async () => expect(await partNames('gamma')).toHaveLength(2));
    const before = (await store.get(GADGET_PART, 'default', 'gamma-part-0')).metadata.uid;
    await store.delete(GADGET_PART, 'default', 'gamma-part-0');
    await eventually(async () => {
      const recreated = await store.get(GADGET_PART, 'default', 'gamma-part-0');
      expect(recreated.metadata.uid).not.toBe(before);
    });
  });

  it('records a terminal error on the Ready condition and stops retrying', async () => {
    await store.create(GADGET, gadget('delta', { parts: -1 }));
    const failed = await eventually(async () => {
      const current = await readGadget('delta');
      expect(current.status?.conditions?.[0]).toMatchObject({
        type: 'Ready',
        status: 'False',
        reason: 'InvalidSpec',
        message: 'spec.parts must be 0 or more',
        observedGeneration: 1,
      });
      return current;
    });
    expect(failed.status?.phase).toBe('Failed');
    expect(await counter(metrics, 'terminal')).toBe(1);
    // No backoff retry comes; only the periodic resync (60 s here) looks at it again.
    await clock.advance(59_000);
    expect(controller.attempts.get('delta')).toBe(1);
  });

  it('retries a failed reconcile with exponential backoff until it succeeds', async () => {
    await store.create(GADGET, gadget('epsilon', { parts: 1, transientFailures: 2 }));
    await eventually(() => expect(controller.attempts.get('epsilon')).toBe(1));
    expect(clock.pendingDelays()).toContain(1000);
    await clock.advance(1000);
    await eventually(() => expect(controller.attempts.get('epsilon')).toBe(2));
    expect(clock.pendingDelays()).toContain(2000);
    await clock.advance(2000);
    await eventually(async () => expect((await readGadget('epsilon')).status?.phase).toBe('Ready'));
    expect(await counter(metrics, 'error')).toBe(2);
  });

  it('writes nothing when a resync finds the object already converged', async () => {
    await store.create(GADGET, gadget('zeta', { parts: 1 }));
    const converged = await eventually(async () => {
      const current = await readGadget('zeta');
      expect(current.status?.phase).toBe('Ready');
      return current;
    });
    const attemptsBefore = controller.attempts.get('zeta')!;
    await clock.advance(60_000);
    await eventually(() => expect(controller.attempts.get('zeta')).toBe(attemptsBefore + 1));
    expect((await readGadget('zeta')).metadata.resourceVersion).toBe(converged.metadata.resourceVersion);
  });

  it('puts kind, name, generation and a reconcile id on every reconcile log line', async () => {
    await store.create(GADGET, gadget('eta', { parts: 1, transientFailures: 1 }));
    await eventually(() => expect(controller.attempts.get('eta')).toBe(1));
    const reconcileLines = lines.filter((line) => line.name === 'eta');
    expect(reconcileLines.length).toBeGreaterThan(0);
    for (const line of reconcileLines) {
      expect(line).toMatchObject({ kind: 'Gadget', namespace: 'default', generation: 1 });
      expect(line.reconcile_id).toMatch(/^gadget-\d+$/);
    }
  });
});

describe('Informer', () => {
  it('relists after 410 Expired and reports what changed while it was away', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-informer-'));
    const store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [GADGET], historyLimit: 5 });
    // The first watch ends at once (as a server-side timeout would) and the next one waits
    // until the test has pushed the informer's revision out of the kept history.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let watches = 0;
    const interruptedWatch = <T extends KubeObject>(type: typeof GADGET, options: WatchOptions): Watch<T> => {
      watches += 1;
      const attempt = watches;
      let inner: Watch<T> | undefined;
      return {
        stop: () => inner?.stop(),
        async *[Symbol.asyncIterator]() {
          if (attempt === 1) return;
          await gate;
          inner = store.watch<T>(type, options);
          yield* inner;
        },
      };
    };
    const interrupted = new Proxy(store, {
      get(target, property) {
        if (property === 'watch') return interruptedWatch;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await store.create(GADGET, gadget('kept', { parts: 0 }));
    await store.create(GADGET, gadget('removed', { parts: 0 }));

    const { logger } = capturedLogger();
    const informer = new Informer<Gadget>(interrupted, GADGET, { logger, delay: async () => {} });
    const events: string[] = [];
    informer.addHandlers({
      onAdd: (object) => events.push(`add ${object.metadata.name}`),
      onDelete: (object) => events.push(`delete ${object.metadata.name}`),
    });
    informer.start();
    await informer.waitForSync();
    expect(events.sort()).toEqual(['add kept', 'add removed']);

    events.length = 0;
    await store.delete(GADGET, 'default', 'removed');
    await store.create(GADGET, gadget('added', { parts: 0 }));
    for (let i = 0; i < 10; i++) await store.patch(GADGET, 'default', 'kept', { spec: { parts: i } });
    release();

    await eventually(() => expect(events.sort()).toEqual(['add added', 'delete removed']));
    expect(
      informer
        .list()
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(['added', 'kept']);
    expect(informer.get('default', 'kept')?.spec?.parts).toBe(9);

    const copy = informer.get('default', 'kept')!;
    copy.spec!.parts = 100;
    expect(informer.get('default', 'kept')?.spec?.parts).toBe(9);

    await informer.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('an event source', () => {
  it('wakes the reconcile of each request it queues, and is stopped with the runner', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-runtime-'));
    const store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: [GADGET, GADGET_PART] });
    const runner = new ControllerRunner({
      store,
      logger: capturedLogger().logger,
      metrics: createMetrics({ processMetrics: false }),
      clock: new FakeClock(),
    });
    const reconciled: string[] = [];
    let emit: ((name: string) => void) | undefined;
    let stopped = false;
    runner.register({
      name: 'sourced',
      for: GADGET,
      sources: [
        (enqueue) => {
          emit = (name) => enqueue({ namespace: 'default', name });
          return () => {
            stopped = true;
          };
        },
      ],
      reconcile: async ({ name }) => {
        reconciled.push(name);
      },
    });
    try {
      await runner.start();
      emit!('woken-from-outside');
      await eventually(() => expect(reconciled).toContain('woken-from-outside'));
    } finally {
      await runner.stop();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(stopped).toBe(true);
  });
});
