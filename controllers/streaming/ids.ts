/**
 * Object names of a streaming cluster's topics and users. They are named after their cluster and
 * their Kafka name, which may hold `_`, `.` and capitals that object names do not: a readable
 * prefix and a digest of the exact name keep them apart. (A cluster's own REST id and object name
 * follow `crds/ids.ts`.)
 */
import { createHash } from 'node:crypto';

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
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
