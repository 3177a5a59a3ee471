/**
 * The kinds the kubernetes runtime reads and writes: CloudNativePG's, Strimzi's, and the built-in
 * ones a database or a share is made of. They are descriptors so that the operator's store serves
 * them (a store answers NotFound for a kind it was not given); none is a cloudplane kind.
 */
import { ROLE_BINDING_KIND, ROLE_KIND } from '../../control-plane/built-in-kinds.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';

const TYPES_FILE = 'workloads/kubernetes/resource-types.ts';

function foreignKind(group: string, version: string, kind: string, plural: string): KindDescriptor {
  return {
    group,
    version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    printerColumns: [],
    typesFile: TYPES_FILE,
  };
}

/** `postgresql.cnpg.io/v1` Cluster: one PostgreSQL database, run by the CloudNativePG operator. */
export const CNPG_CLUSTER = foreignKind('postgresql.cnpg.io', 'v1', 'Cluster', 'clusters');
/** `postgresql.cnpg.io/v1` Backup: one backup of a Cluster, taken by the CloudNativePG operator. */
export const CNPG_BACKUP = foreignKind('postgresql.cnpg.io', 'v1', 'Backup', 'backups');
/** `kafka.strimzi.io/v1` Kafka: one event-streaming cluster, run by the Strimzi cluster operator. */
export const KAFKA = foreignKind('kafka.strimzi.io', 'v1', 'Kafka', 'kafkas');
/** `kafka.strimzi.io/v1` KafkaNodePool: the KRaft nodes (controllers and brokers) of a Kafka. */
export const KAFKA_NODE_POOL = foreignKind('kafka.strimzi.io', 'v1', 'KafkaNodePool', 'kafkanodepools');
/** `kafka.strimzi.io/v1` KafkaTopic: one topic, made in Kafka by Strimzi's topic operator. */
export const KAFKA_TOPIC = foreignKind('kafka.strimzi.io', 'v1', 'KafkaTopic', 'kafkatopics');
/** `kafka.strimzi.io/v1` KafkaUser: a SCRAM user and its ACLs, set in Kafka by Strimzi's user operator. */
export const KAFKA_USER = foreignKind('kafka.strimzi.io', 'v1', 'KafkaUser', 'kafkausers');
/** `kafka.strimzi.io/v1` KafkaConnect: a streaming cluster's Kafka Connect workers, run by Strimzi. */
export const KAFKA_CONNECT = foreignKind('kafka.strimzi.io', 'v1', 'KafkaConnect', 'kafkaconnects');
/** `kafka.strimzi.io/v1` KafkaConnector: one connector, created in its KafkaConnect by Strimzi. */
export const KAFKA_CONNECTOR = foreignKind('kafka.strimzi.io', 'v1', 'KafkaConnector', 'kafkaconnectors');
/** The Connect workers' right to read their connectors' Secret (the config provider asks the API). */
export const ROLE = ROLE_KIND;
export const ROLE_BINDING = ROLE_BINDING_KIND;
export const STATEFUL_SET = foreignKind('apps', 'v1', 'StatefulSet', 'statefulsets');
export const SERVICE = foreignKind('', 'v1', 'Service', 'services');
export const SECRET = foreignKind('', 'v1', 'Secret', 'secrets');
export const PERSISTENT_VOLUME_CLAIM = foreignKind(
  '',
  'v1',
  'PersistentVolumeClaim',
  'persistentvolumeclaims',
);
/** Dumps, restores and the removal of a dump run as Jobs. */
export const JOB = foreignKind('batch', 'v1', 'Job', 'jobs');
/** Read only: a finished Job's pod reports the size of the dump it wrote as its termination message. */
export const POD = foreignKind('', 'v1', 'Pod', 'pods');

/** Every kind the runtime uses: what the operator's store must serve. */
export const KUBERNETES_WORKLOAD_KINDS: readonly KindDescriptor[] = [
  CNPG_CLUSTER,
  CNPG_BACKUP,
  KAFKA,
  KAFKA_NODE_POOL,
  KAFKA_TOPIC,
  KAFKA_USER,
  KAFKA_CONNECT,
  KAFKA_CONNECTOR,
  ROLE,
  ROLE_BINDING,
  STATEFUL_SET,
  SERVICE,
  SECRET,
  PERSISTENT_VOLUME_CLAIM,
  JOB,
  POD,
];
