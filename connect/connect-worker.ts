/**
 * The worker that runs every connector's task in the platform process: each pass reads the
 * connectors from the data plane and brings what runs to what was asked (started, paused,
 * resumed, stopped, restarted after a change of configuration), restarts failed tasks once their
 * delay is over, and removes the connectors of clusters that are gone. One pass runs at a time;
 * the API wakes the worker after each change rather than waiting for the next pass.
 */
import os from 'node:os';
import type { EachBatchPayload, Kafka, Producer } from 'kafkajs';
import type { EventRecorder } from '../controllers/runtime/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import { PassLoop } from './pass-loop.js';
import { connectorGroupOf, type ClusterAccess, type ClusterLookup } from './cluster-access.js';
import { ConnectorEntry, type SinkTaskRun } from './connector-entry.js';
import type { ProduceRecords, SourceRecord, SourceTask } from './change-envelope.js';
import { listOf } from './connectors/plugin.js';
import { pluginOf, taskCountOf } from './connector-plugins.js';
import { errorHandlingSettingsOf, stackTraceOf, type ConsumedRecord } from './error-handling.js';
import type { ConnectorKey, ConnectorStore, StoredConnector } from './connector-store.js';
import { SinkPipeline, type DeadLetterWriter } from './sink-pipeline.js';
import { kafkaHeadersOf } from './kafka-headers.js';
import { SourcePipeline } from './source-pipeline.js';
import type { SinkTask } from './sink-record.js';
import type { SourceOffsetStore } from './source-offsets.js';
import { isUnavailable, unavailableError } from './unavailable-connectors.js';
import { nextTaskState, restartDelayMs, type ConnectState, type TaskEvent } from './task-state.js';
import { taskFailureReporter, type TaskFailureReporter } from './task-failure-events.js';

export const DEFAULT_WORKER_POLL_MS = 1_000;

export interface ConnectWorkerDependencies {
  connectors: ConnectorStore;
  /** Where sources whose database keeps no position for them commit their offsets. */
  offsets: SourceOffsetStore;
  access: ClusterAccess;
  logger: Logger;
  now: () => Date;
  /** How often a pass runs without being woken. */
  pollMs?: number;
  /** Where a failed task is told about, as a Warning Event on its StreamingCluster. */
  events?: EventRecorder;
}

export interface TaskStatus {
  id: number;
  state: ConnectState;
  worker_id: string;
  trace?: string;
}

export interface ConnectorStatus {
  connector: { state: ConnectState; worker_id: string; trace?: string };
  tasks: TaskStatus[];
}

const idOf = (key: ConnectorKey) => `${key.cluster}/${key.name}`;

const isSource = (connector: StoredConnector) =>
  pluginOf(connector.config['connector.class'])?.type === 'source';

/** A running source: its task and the producer it writes through. */
interface RunningSource {
  task: SourceTask;
  producer: Producer;
}

function sinkTaskOf(connector: StoredConnector, onBroken: (error: Error) => void): SinkTask {
  const task = pluginOf(connector.config['connector.class'])?.sinkTask?.(connector.config, onBroken);
  if (task) return task;
  throw new Error(`no connector implements ${connector.config['connector.class']}`);
}

export class ConnectWorker {
  readonly workerId = `${os.hostname()}:connect`;
  private readonly entries = new Map<string, ConnectorEntry>();
  private readonly sources = new Map<string, RunningSource>();
  /** Only the process that runs the controllers (serve, the leading operator) starts it. */
  private readonly loop: PassLoop;
  private readonly reportFailure: TaskFailureReporter;

  constructor(private readonly deps: ConnectWorkerDependencies) {
    this.reportFailure = taskFailureReporter(deps);
    this.loop = new PassLoop(() => this.reconcileAll(), {
      intervalMs: deps.pollMs ?? DEFAULT_WORKER_POLL_MS,
      logger: deps.logger,
      failure: 'connector worker pass failed',
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Runs a pass now, or right after the one running. */
  wake(): void {
    this.loop.wake();
  }

  async close(): Promise<void> {
    await this.loop.stop();
    await Promise.all([...this.entries.values()].map((entry) => this.teardown(entry)));
    this.entries.clear();
  }

  status(connector: StoredConnector): ConnectorStatus {
    const entry = this.entries.get(idOf(connector));
    let state = entry?.connectorState ?? 'UNASSIGNED';
    // A connector that cannot run here is failed itself, not only its task, and never RUNNING:
    // unassigned while its first attempt tries the servers it names.
    const unavailable =
      isUnavailable(pluginOf(connector.config['connector.class'])) &&
      (state === 'RUNNING' || state === 'PAUSED');
    if (unavailable) state = entry?.trace === undefined ? 'UNASSIGNED' : 'FAILED';
    const tasks: TaskStatus[] =
      !entry || state === 'STOPPED' || state === 'UNASSIGNED'
        ? []
        : Array.from({ length: taskCountOf(connector.config) }, (_, id) => this.taskStatus(entry, id));
    return {
      connector: {
        state,
        worker_id: this.workerId,
        ...(unavailable && entry?.trace !== undefined ? { trace: entry.trace } : {}),
      },
      tasks,
    };
  }

  /**
   * A task's state: the connector's tasks start and stop together, so a failed task's siblings,
   * stopped with it until they all restart, are unassigned meanwhile.
   */
  private taskStatus(entry: ConnectorEntry, id: number): TaskStatus {
    const failed = entry.state === 'FAILED';
    if (failed && entry.failedTask !== undefined && entry.failedTask !== id) {
      return { id, state: 'UNASSIGNED', worker_id: this.workerId };
    }
    return {
      id,
      state: entry.state,
      worker_id: this.workerId,
      ...(failed && entry.trace ? { trace: entry.trace } : {}),
    };
  }

  /** Whether no task of the connector runs in this worker (a stopped connector once the worker stopped it). */
  isIdle(key: ConnectorKey): boolean {
    const entry = this.entries.get(idOf(key));
    return !entry || !this.isRunning(entry);
  }

  private isRunning(entry: ConnectorEntry): boolean {
    return entry.running || this.sources.has(idOf(entry.connector));
  }

  activeTopics(key: ConnectorKey): string[] {
    return [...(this.entries.get(idOf(key))?.activeTopics ?? [])].sort();
  }

  resetActiveTopics(key: ConnectorKey): void {
    this.entries.get(idOf(key))?.activeTopics.clear();
  }

  /** Restarts the connector's task (only a failed one with `onlyFailed`) at the next pass, which starts now. */
  restart(key: ConnectorKey, onlyFailed: boolean): void {
    const entry = this.entries.get(idOf(key));
    if (!entry || (onlyFailed && entry.state !== 'FAILED')) return;
    entry.restartRequested = true;
    this.move(entry, 'restarting');
    this.wake();
  }

  /** A Kafka client as the connector's user: the running task's, or a new one. */
  async kafkaFor(connector: StoredConnector): Promise<Kafka> {
    const entry = this.entries.get(idOf(connector));
    if (entry?.kafka) return entry.kafka;
    const cluster = await this.deps.access.lookup(connector.namespace, connector.cluster);
    if (cluster.kind !== 'ready') throw new Error(`the connector's cluster is not ready`);
    const kafka = await this.deps.access.clientFor(connector, cluster);
    if (entry) entry.kafka = kafka;
    return kafka;
  }

  private move(entry: ConnectorEntry, event: TaskEvent): void {
    entry.state = nextTaskState(entry.state, event) ?? entry.state;
  }

  private async reconcileAll(): Promise<void> {
    const connectors = await this.deps.connectors.list();
    const clusters = new Map<string, ClusterLookup>();
    for (const connector of connectors) {
      if (clusters.has(connector.cluster)) continue;
      clusters.set(connector.cluster, await this.deps.access.lookup(connector.namespace, connector.cluster));
    }
    const wanted = new Set<string>();
    for (const connector of connectors) {
      const cluster = clusters.get(connector.cluster)!;
      if (cluster.kind === 'gone') continue;
      wanted.add(idOf(connector));
      await this.reconcile(connector, cluster);
    }
    for (const [id, entry] of this.entries) {
      if (wanted.has(id)) continue;
      this.entries.delete(id);
      await this.teardown(entry);
      if (isSource(entry.connector)) await this.forgetSource(entry.connector);
      const cluster = clusters.get(entry.connector.cluster) ?? (await this.lookup(entry.connector));
      if (cluster.kind === 'ready') {
        await this.deps.access.removeUser(entry.connector, cluster.workload).catch(() => undefined);
      }
    }
    for (const [cluster, lookup] of clusters) {
      if (lookup.kind !== 'gone') continue;
      this.deps.logger.info({ cluster }, 'streaming cluster is gone: removing its connectors');
      await this.deps.connectors.removeCluster(cluster);
      await this.deps.offsets.removeCluster(cluster);
    }
  }

  private lookup(connector: StoredConnector): Promise<ClusterLookup> {
    return this.deps.access.lookup(connector.namespace, connector.cluster);
  }

  private async reconcile(connector: StoredConnector, cluster: ClusterLookup): Promise<void> {
    const id = idOf(connector);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = new ConnectorEntry(connector);
      this.entries.set(id, entry);
    }
    entry.target = connector.targetState;
    if (entry.generation !== connector.generation || entry.restartRequested) {
      await this.teardown(entry);
      entry.connector = connector;
      entry.generation = connector.generation;
      entry.restartRequested = false;
      entry.failures = 0;
      entry.kafka = undefined;
      this.move(entry, 'restarting');
    }
    if (connector.targetState === 'STOPPED') {
      await this.teardown(entry);
      this.move(entry, 'stopped');
      entry.connectorState = 'STOPPED';
      return;
    }
    if (entry.state === 'FAILED') {
      entry.connectorState = connector.targetState;
      await this.teardown(entry);
      if (this.deps.now().getTime() < entry.retryAt) return;
      this.move(entry, 'restarting');
      this.deps.logger.info(
        { connector: id, failures: entry.failures },
        'restarting a failed connector task',
      );
    }
    if (!this.isRunning(entry)) {
      if (cluster.kind !== 'ready') return;
      entry.connectorState = connector.targetState;
      const plugin = pluginOf(connector.config['connector.class']);
      if (plugin && isUnavailable(plugin)) this.fail(entry, await unavailableError(plugin, connector.config));
      else if (isSource(connector)) await this.startSource(entry, cluster);
      else await this.startTask(entry, cluster);
    }
    if (!this.isRunning(entry)) return;
    const topics = listOf(connector.config.topics).map((topic) => ({ topic }));
    const source = this.sources.get(id)?.task;
    if (connector.targetState === 'PAUSED' && entry.state === 'RUNNING') {
      if (source) source.pause();
      else for (const run of entry.tasks) run.consumer.pause(topics);
      this.move(entry, 'paused');
    } else if (connector.targetState === 'RUNNING' && entry.state === 'PAUSED') {
      if (source) source.resume();
      else for (const run of entry.tasks) run.consumer.resume(topics);
      this.move(entry, 'resumed');
    }
    entry.connectorState = connector.targetState;
  }

  /** Starts a sink's `tasks.max` tasks, each a consumer in the connector's group, which shares the partitions among them. */
  private async startTask(
    entry: ConnectorEntry,
    cluster: Extract<ClusterLookup, { kind: 'ready' }>,
  ): Promise<void> {
    const { connector } = entry;
    try {
      const kafka = await this.deps.access.clientFor(connector, cluster);
      entry.kafka = kafka;
      const deadLetter = await this.deadLetterWriter(entry, kafka, cluster);
      for (let id = 0; id < taskCountOf(connector.config); id += 1) {
        const sink = sinkTaskOf(connector, (error) => this.fail(entry, error, id));
        const pipeline = new SinkPipeline({
          connector: connector.name,
          taskId: id,
          config: connector.config,
          sink,
          logger: this.deps.logger,
          ...(deadLetter ? { deadLetter } : {}),
          now: () => this.deps.now().getTime(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        });
        const consumer = kafka.consumer({
          groupId: connectorGroupOf(connector.name),
          retry: { retries: 2, restartOnFailure: async () => false },
        });
        const run: SinkTaskRun = { id, consumer, sink, pipeline };
        entry.tasks.push(run);
        await sink.start();
        consumer.on(consumer.events.CRASH, (event) => this.fail(entry, event.payload.error, id));
        await consumer.connect();
        await consumer.subscribe({ topics: listOf(connector.config.topics), fromBeginning: true });
      }
      this.move(entry, 'started');
      entry.trace = undefined;
      entry.failedTask = undefined;
      for (const run of entry.tasks) {
        await run.consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          eachBatch: (payload) => this.deliver(entry, run, payload),
        });
      }
    } catch (error) {
      this.fail(entry, error as Error);
      await this.teardown(entry);
    }
  }

  /**
   * With `errors.deadletterqueue.topic.name`: the topic made when missing, and a producer as the
   * connector's user that writes each failed record there as it was consumed, with its headers and
   * the context headers added.
   */
  private async deadLetterWriter(
    entry: ConnectorEntry,
    kafka: Kafka,
    cluster: Extract<ClusterLookup, { kind: 'ready' }>,
  ): Promise<DeadLetterWriter | undefined> {
    const topic = errorHandlingSettingsOf(entry.connector.config).deadLetterTopic;
    if (!topic) return undefined;
    await this.deps.access.ensureTopic(cluster, topic);
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    entry.deadLetter = producer;
    await producer.connect();
    return async (record: ConsumedRecord, context: Record<string, string>) => {
      await producer.send({
        topic,
        acks: -1,
        messages: [
          {
            key: record.key,
            value: record.value,
            headers: { ...kafkaHeadersOf(record.headers), ...context },
            timestamp: String(record.timestamp ?? this.deps.now().getTime()),
          },
        ],
      });
    };
  }

  /** Starts a source: its producer as the connector's user, then its task, which resumes at its offset. */
  private async startSource(
    entry: ConnectorEntry,
    cluster: Extract<ClusterLookup, { kind: 'ready' }>,
  ): Promise<void> {
    const { connector } = entry;
    const id = idOf(connector);
    const topics = new Set<string>();
    try {
      entry.kafka = await this.deps.access.clientFor(connector, cluster);
      const producer = entry.kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      const pipeline = new SourcePipeline(connector.config);
      const produce: ProduceRecords = async (records: SourceRecord[]) => {
        const messages = await pipeline.messagesOf(records);
        for (const message of messages) {
          if (topics.has(message.topic)) continue;
          await this.deps.access.ensureTopic(cluster, message.topic);
          topics.add(message.topic);
        }
        if (messages.length === 0) return;
        // Every record acknowledged by all in-sync replicas before the slot moves past it.
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...new Set(messages.map((message) => message.topic))].map((topic) => ({
            topic,
            messages: messages
              .filter((message) => message.topic === topic)
              .map(({ key, value, headers }) => ({ key, value, headers })),
          })),
        });
        for (const message of messages) entry.activeTopics.add(message.topic);
        entry.failures = 0;
      };
      const task = this.sourceTaskOf(connector, produce, (error) => this.fail(entry, error));
      this.sources.set(id, { task, producer });
      await task.start();
      this.move(entry, 'started');
      entry.trace = undefined;
    } catch (error) {
      this.fail(entry, error as Error);
      await this.teardown(entry);
    }
  }

  private sourceTaskOf(
    connector: StoredConnector,
    produce: ProduceRecords,
    onFailed: (error: Error) => void,
  ): SourceTask {
    const key = { cluster: connector.cluster, name: connector.name };
    const task = pluginOf(connector.config['connector.class'])?.sourceTask?.({
      connector: key,
      config: connector.config,
      offsets: {
        load: () => this.deps.offsets.get(key),
        commit: (offset) => this.deps.offsets.commit(key, offset, this.deps.now()),
      },
      produce,
      onFailed,
      now: this.deps.now,
    });
    if (task) return task;
    throw new Error(`no source implements ${connector.config['connector.class']}`);
  }

  /** What a deleted source leaves: its offset, and what its connector keeps in its database. */
  private async forgetSource(connector: StoredConnector): Promise<void> {
    await this.deps.offsets.remove(connector);
    const plugin = pluginOf(connector.config['connector.class']);
    if (!plugin?.forgetSource) return;
    // Best effort: a server that cannot be reached keeps its slot, which its administrator may drop.
    await plugin
      .forgetSource(connector, connector.config)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { connector: idOf(connector), err: error },
          'the replication slot of a deleted source could not be dropped',
        ),
      );
  }

  private async deliver(
    entry: ConnectorEntry,
    run: SinkTaskRun,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
  ): Promise<void> {
    if (!entry.tasks.includes(run) || entry.state === 'FAILED' || !isRunning() || isStale()) return;
    try {
      const committable = await run.pipeline.deliver(batch.topic, batch.partition, batch.messages);
      if (committable.length > 0) {
        await run.consumer.commitOffsets(
          committable.map(({ topic, partition, offset }) => ({ topic, partition, offset: String(offset) })),
        );
      }
      for (const message of batch.messages) resolveOffset(message.offset);
      if (batch.messages.length > 0) entry.activeTopics.add(batch.topic);
      entry.failures = 0;
      await heartbeat();
    } catch (error) {
      this.fail(entry, error as Error, run.id);
    }
  }

  /** The task failed: it says why, and restarts by itself after its delay. */
  private fail(entry: ConnectorEntry, error: Error, task = 0): void {
    if (entry.state === 'FAILED') return;
    entry.failures += 1;
    entry.retryAt = this.deps.now().getTime() + restartDelayMs(entry.failures);
    entry.trace = stackTraceOf(error);
    entry.failedTask = task;
    this.move(entry, 'failed');
    this.deps.logger.warn(
      { connector: idOf(entry.connector), task, failures: entry.failures, err: error },
      'connector task failed',
    );
    this.reportFailure(entry.connector, task, error.message);
    setTimeout(() => this.wake(), restartDelayMs(entry.failures)).unref();
    this.wake();
  }

  private async teardown(entry: ConnectorEntry): Promise<void> {
    const { tasks, deadLetter } = entry;
    const source = this.sources.get(idOf(entry.connector));
    this.sources.delete(idOf(entry.connector));
    entry.tasks = [];
    entry.deadLetter = undefined;
    await source?.task.stop();
    await source?.producer.disconnect().catch(() => undefined);
    await Promise.all(
      tasks.map(async ({ consumer, sink }) => {
        await consumer.disconnect().catch(() => undefined);
        await sink.stop().catch(() => undefined);
      }),
    );
    await deadLetter?.disconnect().catch(() => undefined);
  }
}
