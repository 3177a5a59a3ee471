/**
 * Names of the event-streaming family. A cluster's REST id is `esc_` and 12 hex digits, its
 * object name the hyphen form (`esc-…`), as Kubernetes names take no underscore. Topics and users
 * are named after their cluster and their Kafka name, which may hold `_`, `.` and capitals that
 * object names do not: a readable prefix and a digest of the exact name keep them apart.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newStreamingClusterId(): string {
  return `esc_${randomBytes(6).toString('hex')}`;
}

const REST_ID = /^esc_[0-9a-f]{12}$/;
const OBJECT_NAME = /^esc-[0-9a-f]{12}$/;

/** `esc_0a1b…` → `esc-0a1b…`; anything else is taken as an object name already. */
export function clusterObjectNameOf(id: string): string {
  return REST_ID.test(id) ? id.replace('_', '-') : id;
}

/** `esc-0a1b…` → `esc_0a1b…`; names chosen with kubectl stay as they are. */
export function clusterRestIdOf(name: string): string {
  return OBJECT_NAME.test(name) ? name.replace('-', '_') : name;
}

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * The id the runtime names a cluster's ports and files after: the REST id for clusters the API
 * made; for a name chosen with kubectl, a digest of namespace and name, so two organizations'
 * `events` never share one.
 */
export function clusterWorkloadIdOf(namespace: string, name: string): string {
  const id = clusterRestIdOf(name);
  return REST_ID.test(id) ? id : `esc_${digest(`${namespace}/${name}`, 12)}`;
}

/** The readable part of a child's object name: the Kafka name lower-cased, other characters as `-`. */
function readable(kafkaName: string): string {
  return kafkaName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/**
 * The object name of a cluster's topic or user (`esc-0a1b…-orders-created-<digest>`): unique per
 * exact Kafka name, so `Orders` and `orders` are two objects.
 */
export function childObjectName(cluster: string, kafkaName: string): string {
  const prefix = readable(kafkaName);
  return `${cluster.slice(0, 63)}-${prefix ? `${prefix}-` : ''}${digest(kafkaName, 10)}`;
}
