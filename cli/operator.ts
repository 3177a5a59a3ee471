import { createApp } from '../apiserver/app.js';
import { EVENT_KIND, LEASE_KIND, NAMESPACE_KIND } from '../control-plane/built-in-kinds.js';
import { startServer } from '../apiserver/server.js';
import { ControllerRunner } from '../controllers/runtime/controller-runner.js';
import { runWithLeaderElection } from '../controllers/runtime/leader-election.js';
import { EVERY_KIND, type ApiPermission } from '../control-plane/api-permissions.js';
import { GROUP } from '../control-plane/kind-descriptor.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { openClusterDependencies } from './apiserver.js';
import { KUBERNETES_WORKLOAD_KINDS } from '../workloads/kubernetes/index.js';
import type { EventBridge } from '../integrations/events/event-bridge.js';
import type { OrganizationDeletionWorker } from '../accounts/organization-deletion.js';
import { assemblePlatform, type Platform } from './platform.js';
import { leaderElectionConfig } from '../config/leader-election.js';
import type { Config } from '../config/index.js';
import type { RunningPlatform } from './serve.js';

/** The Lease the operator replicas compete for, in `CLOUDPLANE_LEADER_ELECTION_NAMESPACE`. */
export const OPERATOR_LEASE_NAME = 'cloudplane-operator';

/**
 * What the `operator` process asks of the kube-apiserver. Controllers get the whole
 * `ObjectStore`; leader election reads and writes one Lease in the release namespace.
 */
export const OPERATOR_PERMISSIONS: readonly ApiPermission[] = [
  {
    apiGroup: GROUP,
    resources: [EVERY_KIND],
    verbs: {
      get: 'ObjectStore.get: reconcilers read the object they converge and its children',
      list: 'ObjectStore.list: informers list every kind a controller is for, owns or watches',
      watch: 'ObjectStore.watch: informers follow every such kind',
      create: 'ObjectStore.create: reconcilers create children',
      update: 'ObjectStore.update: reconcilers add and remove finalizers',
      patch: 'ObjectStore.patch: reconcilers change part of an object',
      delete: 'ObjectStore.delete: reconcilers remove children no longer wanted',
    },
    scope: 'cluster',
  },
  {
    apiGroup: GROUP,
    resources: ['*/status'],
    verbs: {
      update: 'ObjectStore.updateStatus: reconcilers write what they observed',
      patch: 'ObjectStore.patch of the status subresource',
    },
    scope: 'cluster',
  },
  {
    apiGroup: GROUP,
    resources: ['*/finalizers'],
    verbs: {
      update:
        'children carry owner references with blockOwnerDeletion, which the apiserver allows only to whoever may update the owner’s finalizers',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['namespaces'],
    verbs: {
      get: 'ObjectStore.delete reads the namespace first, to pin its uid',
      delete: 'organization deletion removes the namespace of an organization once it is empty',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['events'],
    verbs: {
      create: 'the event recorder writes an Event about a reconciled object the first time it happens',
      patch: 'the event recorder counts a repeat on the Event it wrote (count, lastTimestamp)',
      list: 'organization deletion lists the Events left in the namespace it removes',
      get: 'ObjectStore.delete reads each of those Events first, to pin its uid',
      delete: 'organization deletion removes those Events with the namespace',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'postgresql.cnpg.io',
    resources: ['clusters', 'backups'],
    verbs: {
      get: 'the kubernetes workload runtime reads a PostgreSQL database’s Cluster and a Backup’s outcome',
      create:
        'the kubernetes workload runtime creates a Cluster per PostgreSQL database, a Backup per backup',
      patch: 'the kubernetes workload runtime grows a Cluster’s storage',
      delete: 'the kubernetes workload runtime removes them with their database or backup',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'apps',
    resources: ['statefulsets'],
    verbs: {
      get: 'the kubernetes workload runtime reads a MySQL, Redis or MongoDB database’s StatefulSet',
      create: 'the kubernetes workload runtime runs those databases as StatefulSets',
      patch: 'the kubernetes workload runtime grows memory and rolls out a rotated password',
      delete: 'the kubernetes workload runtime removes them with their database',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['services', 'secrets', 'persistentvolumeclaims'],
    verbs: {
      get: 'the kubernetes workload runtime reads a database’s Service and Secret, a share’s claim',
      create: 'the kubernetes workload runtime creates them for databases, shares and backups',
      patch: 'the kubernetes workload runtime rotates passwords and grows claims',
      delete: 'the kubernetes workload runtime removes them with their database or share',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'batch',
    resources: ['jobs'],
    verbs: {
      get: 'the kubernetes workload runtime follows its dump, restore and measurement Jobs',
      create: 'the kubernetes workload runtime runs dumps, restores and share measurements as Jobs',
      delete: 'the kubernetes workload runtime removes a finished Job',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['pods'],
    verbs: {
      list: 'the kubernetes workload runtime reads a finished Job’s termination message (a dump’s size)',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['pods/log'],
    verbs: {
      get: 'the kubernetes workload runtime reads what a stack’s bootstrap job printed',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['secrets'],
    verbs: {
      list: 'helm finds a stack service’s release records (Secrets in the organization’s namespace) by label; the streaming runtime finds a removed cluster’s Secrets by label',
      update: 'helm marks a release record superseded when it upgrades a stack’s service',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'apps',
    resources: ['deployments'],
    verbs: {
      get: 'helm reads a stack service’s Deployment to upgrade it',
      list: 'helm --wait follows a stack service’s Deployments until they are ready',
      watch: 'helm --wait follows a stack service’s Deployments until they are ready',
      create: 'helm installs a stack service’s Deployment',
      update: 'helm rolls a failed upgrade of a stack service back',
      patch: 'helm upgrades a stack service’s Deployment',
      delete: 'helm uninstalls a stack service’s Deployment',
    },
    scope: 'cluster',
  },
  {
    apiGroup: '',
    resources: ['services', 'configmaps'],
    verbs: {
      get: 'helm reads a stack service’s Services and ConfigMaps to upgrade them',
      list: 'helm --wait follows a stack service’s Services until they are ready',
      watch: 'helm --wait follows a stack service’s Services until they are ready',
      create: 'helm installs a stack service’s Services and ConfigMaps',
      update: 'helm rolls a failed upgrade of a stack service back',
      patch: 'helm upgrades a stack service’s Services and ConfigMaps',
      delete: 'helm uninstalls a stack service’s Services and ConfigMaps',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'kafka.strimzi.io',
    resources: ['kafkas', 'kafkanodepools'],
    verbs: {
      get: 'the kubernetes workload runtime reads a streaming cluster’s Kafka status (bootstrap servers, readiness)',
      create: 'the kubernetes workload runtime creates a Kafka and its KRaft node pool per streaming cluster',
      patch: 'the kubernetes workload runtime brings them to the cluster’s tier',
      delete: 'the kubernetes workload runtime removes them with their streaming cluster',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'kafka.strimzi.io',
    resources: ['kafkatopics', 'kafkausers'],
    verbs: {
      get: 'the kubernetes workload runtime reads a topic or user and what Strimzi reported about it',
      list: 'the kubernetes workload runtime lists a streaming cluster’s topics and users (partition budget, removal)',
      create: 'the kubernetes workload runtime creates a KafkaTopic per topic, a KafkaUser per user',
      patch: 'the kubernetes workload runtime grows partitions, changes ACLs and applies a new password',
      delete: 'the kubernetes workload runtime removes them with their topic, user or cluster',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'kafka.strimzi.io',
    resources: ['kafkaconnects', 'kafkaconnectors'],
    verbs: {
      get: 'the connect worker reads a cluster’s KafkaConnect and what Strimzi reported of each connector',
      list: 'the connect worker lists a cluster’s KafkaConnectors to remove those of deleted connectors',
      create:
        'the connect worker creates a KafkaConnect per streaming cluster with connectors, a KafkaConnector per connector',
      patch: 'the connect worker changes a connector’s configuration and state and asks Strimzi for restarts',
      delete:
        'the connect worker removes a deleted connector, and the workers of a cluster left without connectors',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'rbac.authorization.k8s.io',
    resources: ['roles', 'rolebindings'],
    verbs: {
      get: 'the connect worker reads the Role letting a cluster’s Connect workers read their connectors’ Secret',
      create:
        'the connect worker lets a cluster’s Connect workers read their connectors’ Secret (and only it)',
      patch: 'the connect worker keeps that Role and its binding as rendered',
      delete: 'the connect worker removes them with the cluster’s Connect workers',
    },
    scope: 'cluster',
  },
  {
    apiGroup: 'coordination.k8s.io',
    resources: ['leases'],
    verbs: {
      get: 'leader election reads the Lease every retry period',
      create: 'leader election creates the Lease when absent',
      update: 'leader election acquires, renews and releases the Lease',
    },
    scope: 'release-namespace',
  },
];

/**
 * `cloudplane operator`: serves `/health` and `/metrics`, and runs the controllers only while
 * this replica holds the Lease, so of N replicas exactly one reconciles. Stopping stops the
 * controllers, then releases the Lease for a standby to take at once.
 */
export async function runOperator(config: Config, logger: Logger): Promise<RunningPlatform> {
  const { namespace, identity } = leaderElectionConfig(process.env);
  const metrics = createMetrics();
  const { store, database, kubeConfig } = await openClusterDependencies(config, logger, metrics, [
    LEASE_KIND,
    NAMESPACE_KIND,
    EVENT_KIND,
    ...(config.workloads.runtime === 'kubernetes' ? KUBERNETES_WORKLOAD_KINDS : []),
  ]);

  let server;
  let platform: Platform;
  try {
    platform = await assemblePlatform({ config, logger, metrics, store, database, kubeConfig });
    // The operator serves only /health and /metrics: the REST API is the apiserver's.
    server = await startServer(createApp({ http: config.http, logger, metrics, store, database }), {
      host: config.http.host,
      port: config.http.port,
    });
  } catch (error) {
    await database.close();
    await store.close();
    throw error;
  }

  // Every replica delivers integration events, leading or not: events are claimed with a lease.
  const eventDelivery = platform.startEventDelivery();
  let controllers: ControllerRunner | undefined;
  let eventBridge: EventBridge | undefined;
  let organizationDeletion: OrganizationDeletionWorker | undefined;
  let connectWorker: { stop(): Promise<void> } | undefined;
  const leadership = runWithLeaderElection({
    store,
    leaseType: LEASE_KIND,
    namespace,
    name: OPERATOR_LEASE_NAME,
    identity,
    logger,
    // Returns once the informers are started, not synced: a cache that cannot fill (an API
    // refusing a list) must not keep this replica from stepping down or stopping.
    onStartedLeading: async () => {
      const runner = new ControllerRunner({ store, logger, metrics });
      for (const controller of platform.controllers) runner.register(controller);
      controllers = runner;
      // Only the leader publishes resource events: each replica would announce every change again.
      eventBridge = platform.startEventBridge();
      organizationDeletion = platform.startOrganizationDeletion();
      connectWorker = platform.startConnectWorker();
      runner.start().catch((error: unknown) => logger.error({ err: error }, 'controllers failed to start'));
    },
    onStoppedLeading: async () => {
      const runner = controllers;
      const bridge = eventBridge;
      const deletion = organizationDeletion;
      const worker = connectWorker;
      controllers = undefined;
      eventBridge = undefined;
      organizationDeletion = undefined;
      connectWorker = undefined;
      await Promise.all([runner?.stop(), bridge?.stop(), deletion?.stop(), worker?.stop()]);
    },
  });
  logger.info(
    {
      url: server.url,
      mode: 'cluster',
      component: 'operator',
      identity,
      lease: `${namespace}/${OPERATOR_LEASE_NAME}`,
    },
    `cloudplane operator serving /health and /metrics on ${server.url}`,
  );

  const running = server;
  return {
    url: running.url,
    async stop() {
      await leadership.stop();
      await eventDelivery.stop();
      await running.close();
      await platform.close();
      await database.close();
      await store.close();
    },
  };
}
