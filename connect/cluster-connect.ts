/**
 * The connector worker of cluster mode: no task runs in the platform process. Each pass brings the
 * workload runtime's Connect workers (Strimzi's KafkaConnect and KafkaConnectors) to the connectors
 * the data plane holds, passes on the restarts the API was asked for, and records what the workers
 * report, from which every API replica answers `GET /connectors/<name>/status`.
 */
import { createHash } from 'node:crypto';
import type { EventRecorder } from '../controllers/runtime/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import {
  WorkloadError,
  type ConnectorObservation,
  type ConnectorSpec,
  type ConnectRuntime,
  type ConnectUserSpec,
  type StreamingClusterWorkload,
} from '../workloads/runtime.js';
import { PassLoop } from './pass-loop.js';
import { connectorAcls, type ClusterAccess, type ClusterLookup } from './cluster-access.js';
import type { ConnectorObservationStore } from './cluster-connect-store.js';
import { isSecretKey, pluginOf } from './connector-plugins.js';
import { POSTGRES_SOURCE } from './connectors/postgres-source/index.js';
import type { ConnectorKey, ConnectorStore, StoredConnector } from './connector-store.js';
import {
  errorOfTrace,
  newlyFailedTasks,
  taskFailureReporter,
  type TaskFailureReporter,
} from './task-failure-events.js';

export const CLUSTER_CONNECT_POLL_MS = 5_000;

export interface ClusterConnectDependencies {
  connectors: ConnectorStore;
  observations: ConnectorObservationStore;
  access: ClusterAccess;
  runtime: ConnectRuntime;
  logger: Logger;
  now: () => Date;
  pollMs?: number;
  /** Records a task the workers report failed as a Warning Event on its StreamingCluster. */
  events?: EventRecorder;
}

/** The keys Kafka Connect takes from elsewhere than the configuration map. */
const OWN_KEYS = new Set(['name', 'connector.class', 'tasks.max']);

/** The user a cluster's Connect workers reach its brokers as: reserved, fixed per cluster. */
export function connectClusterUserOf(restId: string): string {
  return `cloudplane-connect.${createHash('sha256').update(restId).digest('hex').slice(0, 16)}`;
}

/** The connector as the runtime takes it: secrets apart, the target state in Strimzi's words. */
export function connectorSpecOf(connector: StoredConnector): ConnectorSpec {
  const plugin = pluginOf(connector.config['connector.class']);
  const config: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [key, value] of Object.entries(connector.config)) {
    if (OWN_KEYS.has(key)) continue;
    (isSecretKey(plugin, key) ? secrets : config)[key] = value;
  }
  // The PostgreSQL source decodes with pgoutput unless told otherwise, as it does in the platform
  // process; Debezium itself would take decoderbufs, an extension servers seldom have.
  if (plugin === POSTGRES_SOURCE && !config['plugin.name']) config['plugin.name'] = 'pgoutput';
  return {
    name: connector.name,
    class: connector.config['connector.class'] ?? '',
    tasksMax: Math.max(1, Number(connector.config['tasks.max'] ?? 1) || 1),
    config,
    secrets,
    state:
      connector.targetState === 'PAUSED'
        ? 'paused'
        : connector.targetState === 'STOPPED'
          ? 'stopped'
          : 'running',
  };
}

/** What the API answers before the workers have reported, and for a connector they refused. */
export const UNREPORTED: ConnectorObservation = {
  connector: { state: 'UNASSIGNED', worker_id: '' },
  tasks: [],
  topics: [],
};

const keyOf = (key: ConnectorKey) => `${key.cluster}/${key.name}`;

export class ClusterConnectWorker {
  private readonly loop: PassLoop;
  /** What was last written, so that an unchanged pass writes nothing. */
  private readonly applied = new Map<string, { fingerprint: string; generation: number }>();
  private readonly clusterUsers = new Map<string, string>();
  private readonly recorded = new Map<string, string>();
  private readonly reportFailure: TaskFailureReporter;
  /** Clusters given Connect workers by this process, to remove them once their last connector goes. */
  private readonly served = new Map<string, StreamingClusterWorkload>();

  constructor(private readonly deps: ClusterConnectDependencies) {
    this.reportFailure = taskFailureReporter(deps);
    this.loop = new PassLoop(() => this.reconcileAll(), {
      intervalMs: deps.pollMs ?? CLUSTER_CONNECT_POLL_MS,
      logger: deps.logger,
      failure: 'connect cluster pass failed',
    });
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  close(): Promise<void> {
    return this.loop.stop();
  }

  private async reconcileAll(): Promise<void> {
    const byCluster = new Map<string, StoredConnector[]>();
    for (const connector of await this.deps.connectors.list()) {
      byCluster.set(connector.cluster, [...(byCluster.get(connector.cluster) ?? []), connector]);
    }
    for (const [restId, connectors] of byCluster) {
      const lookup = await this.deps.access.lookup(connectors[0]!.namespace, restId);
      if (lookup.kind === 'gone') {
        // The KafkaConnect is owned by the cluster's Kafka: it goes with it.
        this.deps.logger.info({ cluster: restId }, 'streaming cluster is gone: removing its connectors');
        this.forget(restId);
        await this.deps.connectors.removeCluster(restId);
        continue;
      }
      if (lookup.kind !== 'ready') continue;
      await this.reconcileCluster(restId, lookup, connectors).catch((error: unknown) =>
        this.deps.logger.warn({ cluster: restId, err: error }, 'connect workers not reconciled'),
      );
    }
    for (const [restId, workload] of this.served) {
      if (byCluster.has(restId)) continue;
      await this.deps.runtime.removeConnectCluster(workload, connectClusterUserOf(restId));
      this.forget(restId);
    }
    await this.deps.observations.prune();
  }

  /** Drops what this process remembers of a cluster whose workers are gone. */
  private forget(restId: string): void {
    this.served.delete(restId);
    this.clusterUsers.delete(restId);
    for (const memory of [this.applied, this.recorded]) {
      for (const key of memory.keys()) if (key.startsWith(`${restId}/`)) memory.delete(key);
    }
  }

  private async reconcileCluster(
    restId: string,
    cluster: Extract<ClusterLookup, { kind: 'ready' }>,
    connectors: StoredConnector[],
  ): Promise<void> {
    const { workload } = cluster;
    const user: ConnectUserSpec = {
      name: connectClusterUserOf(restId),
      acls: connectors.flatMap(connectorAcls),
    };
    const fingerprint = JSON.stringify(user);
    if (this.clusterUsers.get(restId) !== fingerprint) {
      await this.deps.runtime.ensureConnectCluster(workload, user);
      this.clusterUsers.set(restId, fingerprint);
      this.served.set(restId, workload);
    }
    const wanted = new Set(connectors.map((connector) => connector.name));
    for (const name of await this.deps.runtime.listConnectors(workload)) {
      if (wanted.has(name)) continue;
      await this.deps.runtime.removeConnector(workload, name);
      this.applied.delete(keyOf({ cluster: restId, name }));
      this.recorded.delete(keyOf({ cluster: restId, name }));
    }
    for (const connector of connectors) {
      const observed = await this.reconcileConnector(workload, connector).catch((error: unknown) => {
        if (!(error instanceof WorkloadError)) throw error;
        // The workers cannot run it (its name, a conflict): it is failed, and says why.
        return {
          ...UNREPORTED,
          connector: { state: 'FAILED', worker_id: '', trace: error.message },
        } satisfies ConnectorObservation;
      });
      await this.record(connector, observed);
    }
  }

  private async reconcileConnector(
    workload: StreamingClusterWorkload,
    connector: StoredConnector,
  ): Promise<ConnectorObservation> {
    const id = keyOf(connector);
    const spec = connectorSpecOf(connector);
    const fingerprint = JSON.stringify(spec);
    const last = this.applied.get(id);
    if (last?.fingerprint !== fingerprint || last.generation !== connector.generation) {
      await this.deps.runtime.ensureConnector(workload, spec);
      this.applied.set(id, { fingerprint, generation: connector.generation });
      // Secret values are resolved when a task starts: a new configuration restarts them all.
      if (last && last.generation !== connector.generation) {
        await this.deps.runtime.restartConnector(workload, connector.name, {
          includeTasks: true,
          onlyFailed: false,
        });
      }
    }
    const restart = await this.deps.observations.takeRestart(connector);
    if (restart?.kind === 'task') await this.deps.runtime.restartTask(workload, connector.name, restart.task);
    else if (restart) await this.deps.runtime.restartConnector(workload, connector.name, restart);
    return (await this.deps.runtime.observeConnector(workload, connector.name)) ?? UNREPORTED;
  }

  private async record(connector: StoredConnector, observed: ConnectorObservation): Promise<void> {
    const serialized = JSON.stringify(observed);
    const previous = this.recorded.get(keyOf(connector));
    if (previous === serialized) return;
    await this.deps.observations.record(connector, observed, this.deps.now());
    this.recorded.set(keyOf(connector), serialized);
    const before = previous === undefined ? undefined : (JSON.parse(previous) as ConnectorObservation).tasks;
    for (const task of newlyFailedTasks(before, observed.tasks)) {
      this.reportFailure(connector, task.id, errorOfTrace(task.trace));
    }
  }
}
