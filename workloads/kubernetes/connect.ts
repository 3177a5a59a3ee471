/**
 * Connectors in a cluster: Strimzi runs them. A streaming cluster with connectors gets a
 * `KafkaConnect` (its workers, owned by its Kafka) and a `KafkaUser` they connect as; each
 * connector is a `KafkaConnector` (owned by the KafkaConnect), its secret values in the
 * KafkaConnect's Secret. Restarts are Strimzi's annotations; state is read back from the
 * KafkaConnector's status, so any operator replica answers the same.
 */
import { randomBytes } from 'node:crypto';
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import { WorkloadError, type ConnectRuntime, type StreamingClusterWorkload } from '../runtime.js';
import { apply, read, refused, removeObject } from './objects.js';
import { secretValue, type SecretObject } from './readiness.js';
import {
  KAFKA,
  KAFKA_CONNECT,
  KAFKA_CONNECTOR,
  KAFKA_USER,
  ROLE,
  ROLE_BINDING,
  SECRET,
} from './resource-types.js';
import {
  connectName,
  connectorSecretName,
  connectWorkerAcls,
  isSecretKeyOf,
  kafkaConnectorName,
  readKafkaConnector,
  renderConnectorSecret,
  renderKafkaConnect,
  renderKafkaConnector,
  renderSecretReader,
  restartAnnotation,
  RESTART_ANNOTATION,
  RESTART_TASK_ANNOTATION,
  secretKeyOf,
  type StrimziConnectSettings,
} from './strimzi-connect-render.js';
import {
  kafkaName,
  kafkaUserAcls,
  kafkaUserName,
  PASSWORD_KEY,
  passwordSecretName,
  renderKafkaUser,
  renderPasswordSecret,
  STRIMZI_CLUSTER_LABEL,
} from './strimzi-render.js';

export function kubernetesConnect(
  store: ObjectStore,
  logger: Logger,
  settings: StrimziConnectSettings = {},
): ConnectRuntime {
  const connectorsOf = async (cluster: StreamingClusterWorkload) =>
    (
      await store
        .list(KAFKA_CONNECTOR, {
          namespace: cluster.organization,
          labelSelector: `${STRIMZI_CLUSTER_LABEL}=${connectName(cluster)}`,
        })
        .catch(refused('list KafkaConnectors'))
    ).items;

  async function kafkaConnect(cluster: StreamingClusterWorkload): Promise<KubeObject> {
    const found = await read(store, KAFKA_CONNECT, cluster.organization, connectName(cluster));
    if (!found) {
      throw new WorkloadError('ConnectMissing', `the Connect workers of ${cluster.id} are not there yet`);
    }
    return found;
  }

  /** The connector's KafkaConnector, when it is this cluster's; another cluster's of the same name is refused. */
  async function ownConnector(cluster: StreamingClusterWorkload, name: string) {
    const existing = await read(store, KAFKA_CONNECTOR, cluster.organization, kafkaConnectorName(name));
    const owner = existing?.metadata.labels?.[STRIMZI_CLUSTER_LABEL];
    if (existing && owner !== connectName(cluster)) {
      throw new WorkloadError(
        'NameConflict',
        `the connector name ${name} is taken in this organization by another cluster's connector (${owner ?? 'not one of the platform'}); Strimzi names connectors by their KafkaConnector, one per namespace`,
      );
    }
    return existing;
  }

  async function annotate(
    cluster: StreamingClusterWorkload,
    name: string,
    annotations: Record<string, string>,
  ) {
    if (!(await ownConnector(cluster, name))) return;
    await store
      .patch(KAFKA_CONNECTOR, cluster.organization, name, { metadata: { annotations } })
      .catch(refused(`annotate KafkaConnector ${name}`));
  }

  return {
    async ensureConnectCluster(cluster, user) {
      const name = kafkaUserName(cluster, user.name);
      const kafka = await read(store, KAFKA, cluster.organization, kafkaName(cluster));
      // The password is made once and kept in its Secret: a new one would roll the workers.
      const current = await read<SecretObject>(
        store,
        SECRET,
        cluster.organization,
        passwordSecretName(cluster, name),
      );
      const password = secretValue(current, PASSWORD_KEY) ?? randomBytes(24).toString('base64url');
      const secret = await apply(store, SECRET, renderPasswordSecret(cluster, name, password), (object) => ({
        data: (object as SecretObject).data,
      }));
      const acls = kafkaUserAcls({ acls: [...connectWorkerAcls(), ...user.acls] });
      await apply(
        store,
        KAFKA_USER,
        renderKafkaUser(cluster, name, acls, secret.metadata.resourceVersion ?? ''),
        (object) => ({
          metadata: { labels: object.metadata.labels, annotations: object.metadata.annotations },
          spec: object.spec,
        }),
      );
      const connect = await apply(
        store,
        KAFKA_CONNECT,
        renderKafkaConnect(cluster, { name }, settings, kafka),
        (object) => ({
          metadata: { labels: object.metadata.labels, annotations: object.metadata.annotations },
          spec: object.spec,
        }),
      );
      for (const object of renderSecretReader(cluster, connect)) {
        const type = object.kind === ROLE.kind ? ROLE : ROLE_BINDING;
        await apply(store, type, object, (each) => {
          const { apiVersion: _version, kind: _kind, metadata: _metadata, ...rest } = each;
          return rest;
        });
      }
      if (!(await read(store, SECRET, cluster.organization, connectorSecretName(cluster)))) {
        await apply(store, SECRET, renderConnectorSecret(cluster, {}, connect), () => ({}));
      }
    },

    async removeConnectCluster(cluster, user) {
      const { organization: namespace } = cluster;
      for (const connector of await connectorsOf(cluster)) {
        await removeObject(store, KAFKA_CONNECTOR, namespace, connector.metadata.name);
      }
      await removeObject(store, KAFKA_CONNECT, namespace, connectName(cluster));
      await removeObject(store, SECRET, namespace, connectorSecretName(cluster));
      const [role, binding] = renderSecretReader(cluster);
      await removeObject(store, ROLE_BINDING, namespace, binding!.metadata.name);
      await removeObject(store, ROLE, namespace, role!.metadata.name);
      await removeObject(store, KAFKA_USER, namespace, user);
      await removeObject(store, SECRET, namespace, passwordSecretName(cluster, user));
      logger.info({ cluster: cluster.id }, 'connect workers removed');
    },

    async ensureConnector(cluster, connector) {
      const name = kafkaConnectorName(connector.name);
      const connect = await kafkaConnect(cluster);
      const existing = await ownConnector(cluster, name);
      // The connector's keys of the shared Secret are replaced; those it no longer has go.
      const secretName = connectorSecretName(cluster);
      const secret = await read<SecretObject>(store, SECRET, cluster.organization, secretName);
      const held = secret?.data ?? {};
      const wanted = new Map(
        Object.entries(connector.secrets).map(([key, value]) => [
          secretKeyOf(name, key),
          Buffer.from(value, 'utf8').toString('base64'),
        ]),
      );
      const data: Record<string, string | null> = {};
      for (const key of Object.keys(held)) if (isSecretKeyOf(name, key) && !wanted.has(key)) data[key] = null;
      for (const [key, value] of wanted) if (held[key] !== value) data[key] = value;
      if (!secret) {
        await apply(store, SECRET, renderConnectorSecret(cluster, {}, connect), () => ({}));
      }
      if (Object.keys(data).length > 0) {
        await store
          .patch(SECRET, cluster.organization, secretName, { data })
          .catch(refused(`write Secret ${secretName}`));
      }
      const previous = (existing?.spec as { config?: Record<string, unknown> } | undefined)?.config ?? {};
      await apply(store, KAFKA_CONNECTOR, renderKafkaConnector(cluster, connector, connect), (object) => {
        const spec = object.spec as { config: Record<string, unknown> };
        // A merge patch keeps keys it does not name: those gone from the configuration are nulled.
        const removed = Object.keys(previous).filter((key) => !(key in spec.config));
        return {
          metadata: { labels: object.metadata.labels },
          spec: {
            ...spec,
            config: { ...Object.fromEntries(removed.map((key) => [key, null])), ...spec.config },
          },
        };
      });
    },

    async removeConnector(cluster, name) {
      if (!(await ownConnector(cluster, name))) return;
      await removeObject(store, KAFKA_CONNECTOR, cluster.organization, name);
      const secretName = connectorSecretName(cluster);
      const secret = await read<SecretObject>(store, SECRET, cluster.organization, secretName);
      const stale = Object.keys(secret?.data ?? {}).filter((key) => isSecretKeyOf(name, key));
      if (stale.length > 0) {
        await store
          .patch(SECRET, cluster.organization, secretName, {
            data: Object.fromEntries(stale.map((key) => [key, null])),
          })
          .catch(refused(`write Secret ${secretName}`));
      }
    },

    async listConnectors(cluster) {
      return (await connectorsOf(cluster)).map((connector) => connector.metadata.name).sort();
    },

    async observeConnector(cluster, name) {
      const connector = await ownConnector(cluster, name);
      return connector ? readKafkaConnector(connector) : undefined;
    },

    async restartConnector(cluster, name, restart) {
      await annotate(cluster, name, { [RESTART_ANNOTATION]: restartAnnotation(restart) });
    },

    async restartTask(cluster, name, task) {
      await annotate(cluster, name, { [RESTART_TASK_ANNOTATION]: String(task) });
    },
  };
}
