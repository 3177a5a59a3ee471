import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Clock, TimerHandle } from '../../observability/clock.js';
import { systemClock } from '../../observability/clock.js';
import { findCondition, setCondition } from './conditions.js';
import { StoreEventRecorder, type EventRecorder } from './event-recorder.js';
import { runtimeStalled, statusTransitionEvent, withRuntimeStalled } from './status-events.js';
import type { CacheReader, ControllerDefinition, ReconcileRequest } from './controller.js';
import { TerminalError } from './controller.js';
import { Informer } from '../../control-plane/informer.js';
import type { Condition, KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';
import { apiVersionOf, isStoreError } from '../../control-plane/types.js';
import { writeStatusIfChanged } from './status.js';
import { WorkQueue } from './work-queue.js';

export interface ControllerRunnerOptions {
  store: ObjectStore;
  logger: Logger;
  metrics: Metrics;
  clock?: Clock;
  /** Where reconciles record Events; by default core v1 Events written to `store`. */
  events?: EventRecorder;
  /** Informer reconnect delay, injected by tests. */
  informerDelay?: (ms: number) => Promise<void>;
}

interface RunningController {
  definition: ControllerDefinition;
  queue: WorkQueue;
  workers: Promise<void>[];
  resyncTimer?: TimerHandle;
  stopSources: (() => void)[];
}

const typeKey = (type: ResourceType) => `${type.plural}.${type.group}/${type.version}`;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function statusConditions(object: KubeObject | undefined): Condition[] | undefined {
  const status = object?.status as { conditions?: Condition[] } | undefined;
  return status?.conditions;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function requestKey(request: ReconcileRequest): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

function parseKey(key: string): ReconcileRequest {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Only spec, metadata and deletion matter to a reconcile; status-only writes are its own echo. */
function changedBeyondStatus(previous: KubeObject, current: KubeObject): boolean {
  const strip = ({ status: _status, metadata, ...rest }: KubeObject) => {
    const { resourceVersion: _rv, ...meta } = metadata;
    return { ...rest, metadata: meta };
  };
  return !isDeepStrictEqual(strip(previous), strip(current));
}

/**
 * Runs controllers over shared informers: one informer per kind however many controllers
 * watch it, one work queue per controller, and a bounded pool of workers that never reconcile
 * the same key twice at once.
 */
export class ControllerRunner {
  private readonly informers = new Map<string, Informer>();
  private readonly controllers: RunningController[] = [];
  private readonly clock: Clock;
  readonly events: EventRecorder;
  private sequence = 0;
  private started = false;

  constructor(private readonly options: ControllerRunnerOptions) {
    this.clock = options.clock ?? systemClock;
    this.events =
      options.events ??
      new StoreEventRecorder({
        store: options.store,
        clock: this.clock,
        logger: options.logger,
        component: 'cloudplane-controllers',
      });
  }

  readonly cache: CacheReader = {
    get: <T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string) =>
      this.declaredInformer(type).get(namespace, name) as T | undefined,
    list: <T extends KubeObject>(type: ResourceType, namespace?: string) =>
      this.declaredInformer(type).list(namespace) as T[],
    byIndex: <T extends KubeObject>(type: ResourceType, index: string, value: string) =>
      this.declaredInformer(type).byIndex(index, value) as T[],
  };

  register(definition: ControllerDefinition): void {
    if (this.started) throw new Error(`controller ${definition.name} registered after start`);
    const { metrics } = this.options;
    const queue = new WorkQueue(definition.backoff, this.clock, (depth) =>
      metrics.queueDepth.set({ kind: definition.for.kind }, depth),
    );
    const controller: RunningController = { definition, queue, workers: [], stopSources: [] };
    this.controllers.push(controller);

    this.informer(definition.for).addHandlers({
      onAdd: (object) => queue.add(requestKey(object.metadata)),
      onUpdate: (previous, current) => {
        if (changedBeyondStatus(previous, current)) queue.add(requestKey(current.metadata));
      },
      onDelete: (object) => queue.add(requestKey(object.metadata)),
    });

    const enqueueOwner = (object: KubeObject) => {
      for (const owner of object.metadata.ownerReferences ?? []) {
        if (
          owner.controller &&
          owner.kind === definition.for.kind &&
          owner.apiVersion === apiVersionOf(definition.for)
        ) {
          queue.add(requestKey({ namespace: object.metadata.namespace, name: owner.name }));
        }
      }
    };
    for (const owned of definition.owns ?? []) {
      this.informer(owned).addHandlers({
        onAdd: enqueueOwner,
        onUpdate: (_previous, current) => enqueueOwner(current),
        onDelete: enqueueOwner,
      });
    }
    for (const read of definition.reads ?? []) this.informer(read);
    for (const index of definition.indexes ?? []) this.informer(index.type).addIndex(index.name, index.keys);
    for (const watched of definition.watches ?? []) {
      const enqueueMapped = (object: KubeObject) => {
        for (const request of watched.map(object, this.cache)) queue.add(requestKey(request));
      };
      this.informer(watched.type).addHandlers({
        onAdd: enqueueMapped,
        onUpdate: (_previous, current) => enqueueMapped(current),
        onDelete: enqueueMapped,
      });
    }
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
    await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync()));
    for (const controller of this.controllers) {
      const concurrency = controller.definition.concurrency ?? 2;
      for (let worker = 0; worker < concurrency; worker++) {
        controller.workers.push(this.work(controller));
      }
      this.scheduleResync(controller);
      for (const source of controller.definition.sources ?? []) {
        const queue = controller.queue;
        controller.stopSources.push(source((request) => queue.add(requestKey(request)), this.cache));
      }
    }
    this.options.logger.info(
      { controllers: this.controllers.map((controller) => controller.definition.name) },
      'controllers started',
    );
  }

  async stop(): Promise<void> {
    for (const controller of this.controllers) {
      for (const stopSource of controller.stopSources.splice(0)) stopSource();
      controller.queue.shutDown();
      if (controller.resyncTimer) this.clock.clearTimeout(controller.resyncTimer);
    }
    await Promise.all(this.controllers.flatMap((controller) => controller.workers));
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }

  /** The informer of a kind some controller declared; reading any other kind is a programming error. */
  private declaredInformer(type: ResourceType): Informer {
    const informer = this.informers.get(typeKey(type));
    if (!informer) {
      throw new Error(`${type.kind} is not cached: declare it in a controller's for, owns, watches or reads`);
    }
    return informer;
  }

  private informer(type: ResourceType): Informer {
    const key = typeKey(type);
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer(this.options.store, type, {
        logger: this.options.logger,
        delay: this.options.informerDelay,
      });
      this.informers.set(key, informer);
      if (this.started) informer.start();
    }
    return informer;
  }

  private scheduleResync(controller: RunningController): void {
    const period = controller.definition.resyncPeriodMs ?? 10 * 60_000;
    controller.resyncTimer = this.clock.setTimeout(() => {
      for (const key of this.informer(controller.definition.for).keys()) controller.queue.add(key);
      this.scheduleResync(controller);
    }, period);
  }

  private async work(controller: RunningController): Promise<void> {
    for (;;) {
      const key = await controller.queue.get();
      if (key === undefined) return;
      // A reconcile over the embedded store awaits only promises that are already settled or
      // settle in the next turn, so a long queue would drain as one chain of microtasks and starve
      // the requests sharing this event loop. Each reconcile starts in a turn of its own.
      await yieldToEventLoop();
      try {
        await this.reconcileKey(controller, key);
      } finally {
        controller.queue.done(key);
      }
    }
  }

  private async reconcileKey(controller: RunningController, key: string): Promise<void> {
    const { definition, queue } = controller;
    const { metrics } = this.options;
    const request = parseKey(key);
    const cached = this.informer(definition.for).get(request.namespace, request.name);
    const reconcileId = `${definition.name}-${++this.sequence}`;
    const logger = this.options.logger.child({
      kind: definition.for.kind,
      namespace: request.namespace,
      name: request.name,
      generation: cached?.metadata.generation,
      reconcile_id: reconcileId,
    });
    const stopTimer = metrics.reconcileDuration.startTimer({ kind: definition.for.kind });
    let result: 'success' | 'requeue' | 'error' | 'terminal' = 'success';
    try {
      const outcome = await definition.reconcile(request, {
        store: this.statusObserving(definition.for, cached),
        cache: this.cache,
        clock: this.clock,
        events: this.events,
        logger,
        reconcileId,
      });
      queue.forget(key);
      const stalled = runtimeStalled(cached?.status);
      if (stalled !== undefined) await this.clearStalled(definition.for, request, stalled);
      if (outcome?.requeueAfterMs !== undefined) {
        result = 'requeue';
        queue.addAfter(key, outcome.requeueAfterMs);
      }
      logger.debug({ result }, 'reconciled');
    } catch (error) {
      if (error instanceof TerminalError) {
        result = 'terminal';
        queue.forget(key);
        logger.warn({ reason: error.reason, message: error.message }, 'reconcile failed terminally');
        await this.recordTerminalError(definition.for, request, error, logger);
      } else {
        result = 'error';
        const retryInMs = queue.nextBackoff(key);
        queue.addAfter(key, retryInMs);
        const conflict = isStoreError(error, 'Conflict');
        logger[conflict ? 'debug' : 'error']({ err: error, retryInMs }, 'reconcile failed; will retry');
        // A stale read is the runtime's business, not the object's: it retries at once.
        if (!conflict && cached !== undefined) {
          this.events.warning(cached, 'ReconcileFailed', `${errorMessage(error)}; retrying`);
        }
      }
    } finally {
      stopTimer();
      metrics.reconcileTotal.inc({ kind: definition.for.kind, result });
    }
  }

  /**
   * The store as one reconcile sees it: each status write of the reconciled object is compared
   * with the status it replaced, and a change of `Ready` is recorded as an Event.
   */
  private statusObserving(type: ResourceType, cached: KubeObject | undefined): ObjectStore {
    const { store } = this.options;
    let known = cached;
    const observe = <T extends KubeObject>(written: T): T => {
      const sameObject =
        written.kind === type.kind &&
        written.apiVersion === apiVersionOf(type) &&
        (known === undefined || known.metadata.uid === written.metadata.uid);
      if (!sameObject) return written;
      const event = statusTransitionEvent(known?.status, written.status);
      if (event) {
        if (event.type === 'Warning') this.events.warning(written, event.reason, event.message);
        else this.events.normal(written, event.reason, event.message);
      }
      known = written;
      return written;
    };
    return {
      get: store.get.bind(store),
      list: store.list.bind(store),
      create: store.create.bind(store),
      update: store.update.bind(store),
      delete: store.delete.bind(store),
      watch: store.watch.bind(store),
      ping: store.ping.bind(store),
      close: store.close.bind(store),
      updateStatus: async <T extends KubeObject>(kind: ResourceType, object: T, options?: object) =>
        observe(
          await store.updateStatus<T>(
            kind,
            object.metadata.uid === cached?.metadata.uid
              ? { ...object, status: withRuntimeStalled(known?.status, object.status, this.clock.now()) }
              : object,
            options,
          ),
        ),
      patch: async <T extends KubeObject>(
        kind: ResourceType,
        namespace: string | undefined,
        name: string,
        patch: unknown,
        options?: { subresource?: 'status'; dryRun?: boolean },
      ) => {
        const written = await store.patch<T>(kind, namespace, name, patch, options);
        return options?.subresource === 'status' ? observe(written) : written;
      },
    };
  }

  /**
   * A reconcile that went through after a terminal error: the object is no longer stalled once
   * the controller has written another `Ready`. A `Stalled` the controller wrote itself is its own.
   */
  private async clearStalled(
    type: ResourceType,
    request: ReconcileRequest,
    stalled: Condition,
  ): Promise<void> {
    let object: KubeObject<unknown, Record<string, unknown>>;
    try {
      object = await this.options.store.get(type, request.namespace, request.name);
    } catch (error) {
      // Gone meanwhile: nothing is stalled any more.
      if (isStoreError(error, 'NotFound')) return;
      throw error;
    }
    const conditions = statusConditions(object) ?? [];
    const current = findCondition(conditions, 'Stalled');
    const ready = findCondition(conditions, 'Ready');
    const unchanged = current?.reason === stalled.reason && current.message === stalled.message;
    const readyMoved = ready?.reason !== stalled.reason || ready.message !== stalled.message;
    if (!unchanged || !readyMoved) return;
    await writeStatusIfChanged(this.options.store, type, object, {
      ...(object.status ?? {}),
      conditions: conditions.filter((condition) => condition.type !== 'Stalled'),
    });
  }

  private async recordTerminalError(
    type: ResourceType,
    request: ReconcileRequest,
    error: TerminalError,
    logger: Logger,
  ): Promise<void> {
    try {
      const object = await this.options.store.get<KubeObject<unknown, Record<string, unknown>>>(
        type,
        request.namespace,
        request.name,
      );
      const status = { ...(object.status ?? {}) };
      status.conditions = setCondition(
        status.conditions as Condition[] | undefined,
        {
          type: 'Ready',
          status: 'False',
          reason: error.reason,
          message: error.message,
          observedGeneration: object.metadata.generation,
        },
        this.clock.now(),
      );
      // kstatus: Stalled says the controller cannot make progress until someone acts.
      status.conditions = setCondition(
        status.conditions as Condition[],
        {
          type: 'Stalled',
          status: 'True',
          reason: error.reason,
          message: error.message,
          observedGeneration: object.metadata.generation,
        },
        this.clock.now(),
      );
      if (error.phase) status.phase = error.phase;
      status.observedGeneration = object.metadata.generation;
      this.events.warning(object, error.reason, error.message);
      await writeStatusIfChanged(this.options.store, type, object, status);
    } catch (writeError) {
      if (!isStoreError(writeError, 'NotFound')) {
        logger.error({ err: writeError }, 'could not record the terminal error on the object');
      }
    }
  }
}
