/**
 * The connector runtime of streaming clusters as the Kafka Connect REST API asks of it: connectors
 * created, configured, paused, resumed, stopped, restarted and deleted in the data plane (the
 * worker then converges), their status from the worker, their offsets from their consumer group.
 */
import type { EventRecorder } from '../controllers/runtime/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import type { ConnectorObservation, ConnectRuntime, StreamingRuntime } from '../workloads/runtime.js';
import type { ObjectStore } from '../control-plane/types.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { ClusterAccess, connectorGroupOf, type StreamingFamily } from './cluster-access.js';
import { ClusterConnectWorker, UNREPORTED } from './cluster-connect.js';
import { ConnectorObservationStore } from './cluster-connect-store.js';
import { badRequest, ConnectError, connectorNotFound, taskNotFound } from './connect-error.js';
import { CONNECTOR_PLUGINS } from './connectors/index.js';
import {
  isSecretKey,
  pluginOf,
  taskCountOf,
  validateConnectorConfig,
  type ConfigInfos,
} from './connector-plugins.js';
import { listOf, type ConnectorPlugin } from './connectors/plugin.js';
import { POSTGRES_SOURCE } from './connectors/postgres-source/index.js';
import { ConnectorStore, type StoredConnector } from './connector-store.js';
import { confirmedLsnOf, postgresSourceSettingsOf } from './connectors/postgres-source/task.js';
import { SourceOffsetStore } from './source-offsets.js';
import { ConnectWorker, type ConnectorStatus, type TaskStatus } from './connect-worker.js';
import { restartPlanOf, statusUnderRestart, type TargetState } from './task-state.js';

/** The value a secret is answered as, as Kafka prints a password. */
export const HIDDEN = '[hidden]';
const NAME = /^[A-Za-z0-9._-]{1,200}$/;

/** The cluster a request addresses, once authorized. */
export interface ConnectCluster {
  restId: string;
  namespace: string;
}

export interface ConnectServiceDependencies {
  database: DataPlane;
  store: ObjectStore;
  streaming: StreamingRuntime;
  family: StreamingFamily;
  platformKey: Buffer;
  logger: Logger;
  now: () => Date;
  pollMs?: number;
  /** Cluster mode: the runtime's Connect workers run the connectors, never this process. */
  connectRuntime?: ConnectRuntime;
  /** Records a failed task as a Warning Event on its StreamingCluster, in either mode. */
  events?: EventRecorder;
}

/** A connector as the API answers it: in cluster mode, with what its workers last reported. */
export type ServedConnector = StoredConnector & { observed?: ConnectorObservation };

export interface SinkOffset {
  partition: { kafka_topic: string; kafka_partition: number };
  offset: { kafka_offset: number } | null;
}

/** A source's offset as Debezium keeps it: per logical server (its topic prefix), the LSN confirmed or the binlog position. */
export interface SourceOffset {
  partition: { server: string };
  offset: object;
}

const isSource = (connector: StoredConnector) =>
  pluginOf(connector.config['connector.class'])?.type === 'source';

function pluginFor(config: Record<string, string>): ConnectorPlugin {
  const plugin = pluginOf(config['connector.class']);
  if (!plugin) {
    throw badRequest(
      `Failed to find any class that implements Connector and which name matches ${config['connector.class'] ?? 'null'}, available connectors are: ${CONNECTOR_PLUGINS.map((known) => known.class).join(', ')}`,
    );
  }
  return plugin;
}

/** A configuration patch: every value as a string, null removing its key. */
export function configPatchOf(body: unknown): Record<string, string | null> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the connector configuration must be a JSON object');
  }
  const nulls = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] === null);
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !nulls.includes(key)));
  return { ...configOf(rest), ...Object.fromEntries(nulls.map((key) => [key, null])) };
}

/** Every value as a string, as Kafka Connect keeps a configuration; 400 for what is no configuration. */
export function configOf(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the connector configuration must be a JSON object');
  }
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null || typeof value === 'object') throw badRequest(`the value of ${key} must be a string`);
    config[key] = String(value);
  }
  return config;
}

export class ConnectService {
  readonly worker: ConnectWorker;
  /** Cluster mode: reconciles the runtime's workers instead of running tasks here. */
  private readonly clusterWorker: ClusterConnectWorker | undefined;
  private readonly observations: ConnectorObservationStore;
  private readonly access: ClusterAccess;
  private readonly connectors: ConnectorStore;
  private readonly sourceOffsets: SourceOffsetStore;

  constructor(private readonly deps: ConnectServiceDependencies) {
    this.connectors = new ConnectorStore(deps.database, deps.platformKey);
    this.sourceOffsets = new SourceOffsetStore(deps.database);
    this.access = new ClusterAccess(deps.store, deps.streaming, deps.family);
    this.worker = new ConnectWorker({
      connectors: this.connectors,
      offsets: this.sourceOffsets,
      access: this.access,
      logger: deps.logger,
      now: deps.now,
      ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
      ...(deps.events ? { events: deps.events } : {}),
    });
    this.observations = new ConnectorObservationStore(deps.database);
    this.clusterWorker = deps.connectRuntime
      ? new ClusterConnectWorker({
          connectors: this.connectors,
          observations: this.observations,
          access: this.access,
          runtime: deps.connectRuntime,
          logger: deps.logger,
          now: deps.now,
          ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
          ...(deps.events ? { events: deps.events } : {}),
        })
      : undefined;
  }

  /**
   * Starts what runs the connectors: their tasks in this process, or, in cluster mode, the pass
   * that brings the runtime's workers to them. Only one process (the leader) may.
   */
  startWorker(): { stop(): Promise<void> } {
    const worker = this.clusterWorker ?? this.worker;
    worker.start();
    return { stop: () => worker.close() };
  }

  private wake(): void {
    (this.clusterWorker ?? this.worker).wake();
  }

  plugins() {
    return CONNECTOR_PLUGINS.map((plugin) => ({
      class: plugin.class,
      type: plugin.type,
      version: plugin.version,
    }));
  }

  validate(className: string, config: Record<string, string>): ConfigInfos {
    const plugin = pluginOf(className) ?? pluginOf(config['connector.class']);
    if (!plugin)
      throw new ConnectError(
        404,
        `Failed to find any class that implements Connector and which name matches ${className}`,
      );
    return validateConnectorConfig(plugin, { 'connector.class': plugin.class, ...config });
  }

  private checked(name: string, config: Record<string, string>): Record<string, string> {
    if (!NAME.test(name)) {
      throw badRequest('a connector name has 1 to 200 ASCII letters, digits, ".", "_" or "-"');
    }
    if (config.name !== undefined && config.name !== name) {
      throw badRequest(
        'Connector name configuration (' +
          config.name +
          ') doesn\u2019t match connector name in the URL (' +
          name +
          ')',
      );
    }
    const complete = { ...config, name };
    const infos = validateConnectorConfig(pluginFor(complete), complete);
    if (infos.error_count > 0) {
      const errors = infos.configs.flatMap((info) =>
        info.value.errors.map((error) => `${info.value.name}: ${error}`),
      );
      throw badRequest(
        `Connector configuration is invalid and contains the following ${infos.error_count} error(s):\n${errors.join('\n')}\nYou can also find the above list of errors at the endpoint \`/connector-plugins/{connectorType}/config/validate\``,
      );
    }
    return complete;
  }

  /** `[hidden]` for a secret keeps the one stored. */
  private withStoredSecrets(config: Record<string, string>, stored: StoredConnector | undefined) {
    if (!stored) return config;
    const plugin = pluginOf(config['connector.class']);
    return Object.fromEntries(
      Object.entries(config).map(([key, value]) => [
        key,
        value === HIDDEN && isSecretKey(plugin, key) && stored.config[key] !== undefined
          ? stored.config[key]
          : value,
      ]),
    );
  }

  async create(cluster: ConnectCluster, name: unknown, config: Record<string, string>) {
    if (typeof name !== 'string') throw badRequest('Connector name is required');
    const complete = this.checked(name, config);
    await this.connectors.create(
      { cluster: cluster.restId, name },
      cluster.namespace,
      complete,
      this.deps.now(),
    );
    this.wake();
    return this.info(await this.connectors.get({ cluster: cluster.restId, name }));
  }

  /** Creates or updates; answers whether it was created. */
  async putConfig(cluster: ConnectCluster, name: string, config: Record<string, string>) {
    const key = { cluster: cluster.restId, name };
    const stored = await this.connectors.find(key);
    const complete = this.checked(name, this.withStoredSecrets(config, stored));
    if (stored) await this.connectors.updateConfig(key, complete, this.deps.now());
    else await this.connectors.create(key, cluster.namespace, complete, this.deps.now());
    this.wake();
    return { created: !stored, info: this.info(await this.connectors.get(key)) };
  }

  async names(cluster: ConnectCluster): Promise<ServedConnector[]> {
    return Promise.all((await this.connectors.list(cluster.restId)).map((each) => this.served(each)));
  }

  async get(cluster: ConnectCluster, name: string): Promise<ServedConnector> {
    return this.served(await this.connectors.get({ cluster: cluster.restId, name }));
  }

  /** In cluster mode, the connector with its workers' last report (read here, so status stays a plain read). */
  private async served(connector: StoredConnector): Promise<ServedConnector> {
    if (!this.clusterWorker) return connector;
    return { ...connector, observed: (await this.observations.observed(connector)) ?? UNREPORTED };
  }

  /** The configuration as answered: secrets hidden. */
  maskedConfig(connector: StoredConnector): Record<string, string> {
    const plugin = pluginOf(connector.config['connector.class']);
    return Object.fromEntries(
      Object.entries(connector.config).map(([key, value]) => [
        key,
        isSecretKey(plugin, key) ? HIDDEN : value,
      ]),
    );
  }

  info(connector: StoredConnector) {
    const plugin = pluginOf(connector.config['connector.class']);
    const tasks =
      connector.targetState === 'STOPPED'
        ? []
        : Array.from({ length: taskCountOf(connector.config) }, (_, task) => ({
            connector: connector.name,
            task,
          }));
    return {
      name: connector.name,
      config: this.maskedConfig(connector),
      tasks,
      type: plugin?.type ?? 'unknown',
    };
  }

  status(connector: ServedConnector): ConnectorStatus & { name: string; type: string } {
    return {
      name: connector.name,
      ...this.statusOf(connector),
      type: pluginOf(connector.config['connector.class'])?.type ?? 'unknown',
    };
  }

  private statusOf(connector: ServedConnector): ConnectorStatus {
    if (!connector.observed) return this.worker.status(connector);
    const { connector: state, tasks } = connector.observed;
    return { connector: state, tasks };
  }

  taskStatus(connector: ServedConnector, task: number): TaskStatus {
    const found = this.statusOf(connector).tasks.find((entry) => entry.id === task);
    if (!found) throw taskNotFound(connector.name, task);
    return found;
  }

  async setTargetState(cluster: ConnectCluster, name: string, state: TargetState): Promise<void> {
    await this.connectors.setTargetState({ cluster: cluster.restId, name }, state, this.deps.now());
    this.wake();
  }

  async remove(cluster: ConnectCluster, name: string): Promise<void> {
    if (!(await this.connectors.remove({ cluster: cluster.restId, name }))) throw connectorNotFound(name);
    // The worker removes it too once the task stopped; this covers a worker that never ran it.
    await this.sourceOffsets.remove({ cluster: cluster.restId, name });
    this.wake();
  }

  /**
   * Restarts what Kafka Connect's restart plan names (the connector unless only failed ones are
   * asked for, its tasks with `includeTasks`) and answers the status with those RESTARTING.
   */
  async restart(connector: ServedConnector, options: { includeTasks: boolean; onlyFailed: boolean }) {
    const status = this.status(connector);
    const plan = restartPlanOf(status, options);
    if (this.clusterWorker) {
      await this.observations.requestRestart(connector, { kind: 'connector', ...options });
      this.wake();
    } else if (plan.connector || plan.tasks.length > 0) {
      // One task runs the connector here: restarting either restarts it.
      this.worker.restart(connector, false);
    }
    return statusUnderRestart(status, plan);
  }

  async restartTask(connector: ServedConnector, task: number): Promise<void> {
    this.taskStatus(connector, task);
    if (this.clusterWorker) {
      await this.observations.requestRestart(connector, { kind: 'task', task });
      this.wake();
    } else {
      this.worker.restart(connector, false);
    }
  }

  topics(connector: ServedConnector): string[] {
    return connector.observed ? connector.observed.topics : this.worker.activeTopics(connector);
  }

  /** Forgets the topics the connector used, as `PUT …/topics/reset` asks; it records them anew as it runs. */
  resetTopics(connector: ServedConnector): void {
    if (connector.observed) {
      throw new ConnectError(
        403,
        'Topic tracking reset is not available for a connector run by the cluster\u2019s Connect workers',
      );
    }
    this.worker.resetActiveTopics(connector);
  }

  /**
   * Kafka's `PATCH /connectors/<name>/config`: the given keys set, a null removing one, the rest
   * kept; the result validated as a whole.
   */
  async patchConfig(cluster: ConnectCluster, name: string, patch: Record<string, string | null>) {
    const key = { cluster: cluster.restId, name };
    const stored = await this.connectors.find(key);
    if (!stored) throw connectorNotFound(name);
    const merged = { ...stored.config };
    for (const [entry, value] of Object.entries(patch)) {
      if (value === null) delete merged[entry];
      else merged[entry] = value;
    }
    const complete = this.checked(name, this.withStoredSecrets(merged, stored));
    await this.connectors.updateConfig(key, complete, this.deps.now());
    this.wake();
    return this.info(await this.connectors.get(key));
  }

  /** A sink's offsets: its consumer group's committed offsets; a source's: its slot's confirmed LSN or its committed offset. */
  async offsets(connector: StoredConnector): Promise<SinkOffset[] | SourceOffset[]> {
    if (isSource(connector) && pluginOf(connector.config['connector.class']) !== POSTGRES_SOURCE) {
      const stored = await this.sourceOffsets.get(connector);
      return stored ? [stored] : [];
    }
    if (isSource(connector)) {
      const lsn = await confirmedLsnOf(postgresSourceSettingsOf(connector, connector.config));
      return lsn === null
        ? []
        : [{ partition: { server: connector.config['topic.prefix']! }, offset: { lsn } }];
    }
    if (this.clusterWorker) return this.clusterSinkOffsets(connector);
    const admin = (await this.worker.kafkaFor(connector)).admin();
    await admin.connect();
    try {
      const topics = listOf(connector.config.topics);
      const fetched = await admin.fetchOffsets({ groupId: connectorGroupOf(connector.name), topics });
      return fetched.flatMap(({ topic, partitions }) =>
        partitions
          .filter((partition) => Number(partition.offset) >= 0)
          .map((partition) => ({
            partition: { kafka_topic: topic, kafka_partition: partition.partition },
            offset: { kafka_offset: Number(partition.offset) },
          })),
      );
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * Cluster mode: the sink's committed offsets as the platform's own user of the cluster reads its
   * group, so no broker user is made here for the connector.
   */
  private async clusterSinkOffsets(connector: StoredConnector): Promise<SinkOffset[]> {
    const cluster = await this.access.lookup(connector.namespace, connector.cluster);
    if (cluster.kind !== 'ready') return [];
    const topics = new Set(listOf(connector.config.topics));
    const lag = await this.deps.streaming.groupLag(cluster.workload, connectorGroupOf(connector.name));
    return (lag?.partitions ?? [])
      .filter((partition) => topics.has(partition.topic) && partition.committedOffset >= 0)
      .map((partition) => ({
        partition: { kafka_topic: partition.topic, kafka_partition: partition.partition },
        offset: { kafka_offset: partition.committedOffset },
      }));
  }

  private stopped(connector: ServedConnector): void {
    if (this.clusterWorker) {
      throw badRequest(
        `the offsets of a connector run by the cluster's Connect workers cannot be modified through this API`,
      );
    }
    if (isSource(connector)) {
      throw badRequest(
        `the offsets of a source are kept by the source (its replication slot or binlog position) and cannot be modified here`,
      );
    }
    if (connector.targetState !== 'STOPPED' || !this.isIdle(connector)) {
      throw badRequest(
        `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${connector.name}/stop' endpoint`,
      );
    }
  }

  /** Sets the given offsets of a stopped sink; a null offset starts its partition over. */
  async alterOffsets(connector: ServedConnector, offsets: SinkOffset[]): Promise<void> {
    this.stopped(connector);
    const topics = new Set(listOf(connector.config.topics));
    const admin = (await this.worker.kafkaFor(connector)).admin();
    await admin.connect();
    try {
      for (const { partition, offset } of offsets) {
        if (!topics.has(partition.kafka_topic)) {
          throw badRequest(`the connector does not consume topic ${partition.kafka_topic}`);
        }
        const next = offset === null ? 0 : offset.kafka_offset;
        await admin.setOffsets({
          groupId: connectorGroupOf(connector.name),
          topic: partition.kafka_topic,
          partitions: [{ partition: partition.kafka_partition, offset: String(next) }],
        });
      }
    } finally {
      await admin.disconnect();
    }
  }

  /** Starts a stopped sink over from the beginning of its topics. */
  async resetOffsets(connector: ServedConnector): Promise<void> {
    this.stopped(connector);
    const admin = (await this.worker.kafkaFor(connector)).admin();
    await admin.connect();
    try {
      for (const topic of listOf(connector.config.topics)) {
        await admin.resetOffsets({ groupId: connectorGroupOf(connector.name), topic, earliest: true });
      }
    } finally {
      await admin.disconnect();
    }
  }

  private isIdle(connector: ServedConnector): boolean {
    if (connector.observed) return connector.observed.connector.state === 'STOPPED';
    return this.worker.isIdle(connector);
  }

  async close(): Promise<void> {
    await Promise.all([this.worker.close(), this.clusterWorker?.close()]);
  }
}
