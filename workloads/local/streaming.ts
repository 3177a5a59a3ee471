import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { createAuthority, issueCertificate, type CertificateAndKey } from '../../security/certificates.js';
import {
  WorkloadError,
  type GroupLag,
  type GroupObservation,
  type StreamingClusterObservation,
  type StreamingClusterWorkload,
  type StreamingRuntime,
  type StreamingTopicSpec,
  type StreamingUserSpec,
  type TopicObservation,
} from '../runtime.js';
import { ErrorCode, KafkaCluster, listen, readRecordWindow, SqliteLogStore } from './kafka/index.js';
import { scramCredential } from '../../security/scram.js';
import type { Clock } from '../../observability/clock.js';
import { PortPool, type PortRange } from './port-pool.js';

export interface LocalStreamingOptions {
  /** The workloads directory: the CA and each cluster's data live under `<dir>/streaming/`. */
  dir: string;
  /** The host clients reach the brokers at; the brokers' certificates name it. */
  advertisedHost: string;
  ports: PortRange;
  logger: Logger;
  clock?: Clock;
  /** How often retention and compaction run (default one minute). */
  maintenanceIntervalMs?: number;
  /** Kafka's `transactional.id.expiration.ms` of every cluster (default 7 days). */
  transactionalIdExpirationMs?: number;
}

/**
 * Brokers advertised on loopback listen on loopback only, like the platform's other local
 * servers; advertised on another name or address, they must be reachable there.
 */
function bindHostFor(advertisedHost: string): string {
  return advertisedHost === 'localhost' || advertisedHost === '::1' || advertisedHost.startsWith('127.')
    ? '127.0.0.1'
    : '0.0.0.0';
}

export type TopicsListener = (topics: TopicObservation[]) => void;

/**
 * The local streaming runtime, plus `close` and `onTopicsChanged(clusterId, listener)`, which
 * tells the controller whenever a cluster's topics change (those made over the Kafka protocol too).
 */
export type LocalStreaming = StreamingRuntime & {
  close(): Promise<void>;
  onTopicsChanged(clusterId: string, listener: TopicsListener): () => void;
};

/** What is kept beside a cluster's log so a restart adopts the same ports. */
interface ClusterFile {
  ports: number[];
}

const INTERNAL_USER = 'cloudplane-internal';
const CERTIFICATE_DAYS = 825;

function authorityOf(dir: string): CertificateAndKey {
  const keyFile = path.join(dir, 'ca.key');
  const certFile = path.join(dir, 'ca.crt');
  if (fs.existsSync(keyFile) && fs.existsSync(certFile)) {
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const authority = createAuthority('cloudplane streaming authority');
  fs.writeFileSync(keyFile, authority.key, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  fs.writeFileSync(certFile, authority.cert, { mode: 0o644 });
  return authority;
}

function refusal(reason: string, message: string): WorkloadError {
  return new WorkloadError(reason, message);
}

/** Maps a broker refusal to the runtime's error: tier limits get their own reasons. */
function refusalReason(errorCode: number): string {
  switch (errorCode) {
    case ErrorCode.POLICY_VIOLATION:
    case ErrorCode.INVALID_PARTITIONS:
      return 'PartitionLimit';
    case ErrorCode.INVALID_CONFIG:
      return 'RetentionLimit';
    case ErrorCode.INVALID_TOPIC_EXCEPTION:
      return 'InvalidTopicName';
    case ErrorCode.INVALID_REPLICATION_FACTOR:
      return 'InvalidReplicationFactor';
    default:
      return 'TopicRefused';
  }
}

export function createLocalStreaming(options: LocalStreamingOptions): LocalStreaming {
  const root = path.join(options.dir, 'streaming');
  const pool = new PortPool(options.ports, 'CLOUDPLANE_STREAMING_PORTS', '0.0.0.0');
  const running = new Map<string, Promise<KafkaCluster>>();
  const listeners = new Map<string, Set<TopicsListener>>();
  const watchers = new Set<(clusterId: string) => void>();
  let authority: CertificateAndKey | undefined;
  const clusterDir = (id: string) => {
    if (!/^[A-Za-z0-9_-]+$/.test(id))
      throw refusal('InvalidClusterId', `cluster id ${id} is not a file name`);
    return path.join(root, id);
  };

  function claimedPorts(): Set<number> {
    const claimed = new Set<number>();
    if (!fs.existsSync(root)) return claimed;
    for (const entry of fs.readdirSync(root)) {
      const file = path.join(root, entry, 'cluster.json');
      if (!fs.existsSync(file)) continue;
      for (const port of (JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterFile).ports) claimed.add(port);
    }
    return claimed;
  }

  async function portsFor(workload: StreamingClusterWorkload, dir: string): Promise<number[]> {
    const file = path.join(dir, 'cluster.json');
    const kept = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterFile).ports : [];
    const ports = kept.slice(0, workload.limits.brokers);
    while (ports.length < workload.limits.brokers) {
      const claimed = claimedPorts();
      for (const port of ports) claimed.add(port);
      ports.push(await pool.allocate(claimed));
    }
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify({ ports } satisfies ClusterFile));
    return ports;
  }

  async function start(workload: StreamingClusterWorkload): Promise<KafkaCluster> {
    const dir = clusterDir(workload.id);
    authority ??= authorityOf(root);
    const ports = await portsFor(workload, dir);
    const logger = options.logger.child({ streamingCluster: workload.id });
    const cluster = new KafkaCluster({
      clusterId: workload.id,
      store: new SqliteLogStore(path.join(dir, 'log.sqlite')),
      brokers: ports.map((port, nodeId) => ({ nodeId, host: options.advertisedHost, port })),
      limits: workload.limits,
      logger,
      clock: options.clock,
      // The platform's own user, for reading lag and offsets over the protocol; its password lives only here.
      superuser: { name: INTERNAL_USER, credential: scramCredential(randomBytes(24).toString('base64url')) },
      maintenanceIntervalMs: options.maintenanceIntervalMs,
      transactionalIdExpirationMs: options.transactionalIdExpirationMs,
    });
    try {
      const certificate = issueCertificate(authority, {
        commonName: options.advertisedHost,
        sans: [...new Set([options.advertisedHost, 'localhost', '127.0.0.1'])],
        days: CERTIFICATE_DAYS,
      });
      await listen(cluster, { tls: certificate, bindHost: bindHostFor(options.advertisedHost) });
    } catch (error) {
      await cluster.close();
      throw new WorkloadError(
        'ListenFailed',
        `the brokers of ${workload.id} could not listen on ${ports.join(', ')}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    cluster.onTopicsChanged(() => {
      const observed = cluster.store.topics().map((topic) => cluster.observeTopic(topic));
      for (const listener of listeners.get(workload.id) ?? []) listener(observed);
      for (const watcher of watchers) watcher(workload.id);
    });
    cluster.onAclsChanged(() => {
      for (const watcher of watchers) watcher(workload.id);
    });
    logger.info({ ports }, 'streaming cluster started');
    return cluster;
  }

  /** The running cluster, started (or adopted from its directory) on first use. */
  function clusterOf(workload: StreamingClusterWorkload): Promise<KafkaCluster> {
    let started = running.get(workload.id);
    if (!started) {
      started = start(workload);
      running.set(workload.id, started);
      started.catch(() => running.delete(workload.id));
    }
    return started;
  }

  /** The cluster when it runs or has data to adopt; undefined when it was never made. */
  async function existing(workload: StreamingClusterWorkload): Promise<KafkaCluster | undefined> {
    if (running.has(workload.id) || fs.existsSync(path.join(clusterDir(workload.id), 'cluster.json'))) {
      return clusterOf(workload);
    }
    return undefined;
  }

  /**
   * The cluster a topic or user goes into: adopted after a restart, but never made again after
   * `removeCluster` (only `ensureCluster` makes one).
   */
  async function madeCluster(workload: StreamingClusterWorkload): Promise<KafkaCluster> {
    const cluster = await existing(workload);
    if (!cluster) throw refusal('ClusterNotFound', `streaming cluster ${workload.id} does not exist`);
    return cluster;
  }

  async function stop(id: string): Promise<void> {
    const started = running.get(id);
    running.delete(id);
    const cluster = await started?.catch(() => undefined);
    await cluster?.close();
  }

  return {
    async ensureCluster(workload): Promise<StreamingClusterObservation> {
      const cluster = await clusterOf(workload);
      const brokers = cluster.brokers.length;
      return {
        realization: 'real',
        state: 'ready',
        ...(brokers > 1
          ? {
              message: `the ${brokers} brokers are ${brokers} listeners of one process on the platform's host: their replicas share one machine`,
            }
          : {}),
        bootstrapServers: cluster.brokers.map((broker) => `${broker.host}:${broker.port}`),
        caCertificate: authority!.cert,
        usage: { storageBytes: cluster.store.totalBytes(), partitions: cluster.totalPartitions() },
      };
    },

    async removeCluster(workload) {
      await stop(workload.id);
      fs.rmSync(clusterDir(workload.id), { recursive: true, force: true });
    },

    async ensureTopic(workload, spec: StreamingTopicSpec): Promise<TopicObservation> {
      const cluster = await madeCluster(workload);
      const current = cluster.store.topic(spec.name);
      const problem = !current
        ? cluster.createTopic(spec)
        : ((spec.partitions > current.partitions
            ? cluster.createPartitions(spec.name, spec.partitions)
            : undefined) ??
          (spec.retentionMs !== current.retentionMs ||
          spec.cleanupPolicy !== current.cleanupPolicy ||
          (spec.flushMessages ?? current.flushMessages) !== current.flushMessages ||
          (spec.flushMs ?? current.flushMs) !== current.flushMs
            ? cluster.updateTopicConfig(spec.name, {
                retentionMs: spec.retentionMs,
                cleanupPolicy: spec.cleanupPolicy,
                flushMessages: spec.flushMessages ?? current.flushMessages,
                flushMs: spec.flushMs ?? current.flushMs,
              })
            : undefined));
      if (problem) throw refusal(refusalReason(problem.errorCode), problem.message);
      return cluster.observeTopic(cluster.store.topic(spec.name)!);
    },

    async removeTopic(workload, name) {
      const cluster = await existing(workload);
      cluster?.deleteTopic(name);
    },

    async listTopics(workload) {
      const cluster = await existing(workload);
      return cluster ? cluster.store.topics().map((topic) => cluster.observeTopic(topic)) : [];
    },

    async ensureUser(workload, user: StreamingUserSpec) {
      if (user.name === INTERNAL_USER)
        throw refusal('ReservedUserName', `${INTERNAL_USER} is the platform's own user`);
      (await madeCluster(workload)).saveUser(user);
    },

    async removeUser(workload, name) {
      (await existing(workload))?.removeUser(name);
    },

    async listGroups(workload): Promise<GroupObservation[]> {
      return (await existing(workload))?.observeGroups() ?? [];
    },

    async groupLag(workload, groupId): Promise<GroupLag | undefined> {
      return (await existing(workload))?.groupLag(groupId);
    },

    async listUserAcls(workload) {
      const cluster = await existing(workload);
      return (cluster?.userSpecs() ?? []).map((user) => ({ name: user.name, acls: user.acls }));
    },

    watchChanges(watcher) {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },

    async readRecords(workload, topic, request) {
      const cluster = await existing(workload);
      const stored = cluster?.store.topic(topic);
      if (!cluster || !stored) return undefined;
      const partitions =
        request.partition === undefined ? [...Array(stored.partitions).keys()] : [request.partition];
      return readRecordWindow(cluster.store, topic, partitions, request);
    },

    onTopicsChanged(clusterId, listener) {
      const set = listeners.get(clusterId) ?? new Set();
      set.add(listener);
      listeners.set(clusterId, set);
      return () => set.delete(listener);
    },

    async close() {
      await Promise.all([...running.keys()].map((id) => stop(id)));
    },
  };
}
