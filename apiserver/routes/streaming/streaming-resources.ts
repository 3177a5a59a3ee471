/** What the `/v1/streaming` routes share: services, scopes, lookups within the caller's organization. */
import { objectNameOf } from '../../../crds/ids.js';
import type { Principal } from '../../../accounts/principal.js';
import type { PublicUrl } from '../../../config/http.js';
import type { VpcConfig } from '../../../config/vpc.js';
import { isStoreError, type Condition, type ObjectStore } from '../../../control-plane/types.js';
import { childObjectName, clusterWorkload, type Problem } from '../../../controllers/streaming/index.js';
import {
  STREAMING_CLUSTER,
  type StreamingCluster,
  type StreamingTopic,
  type StreamingUser,
} from '../../../crds/streaming.js';
import type { ResourceType } from '../../../control-plane/types.js';
import type { StreamingClusterWorkload, StreamingRuntime } from '../../../workloads/runtime.js';
import { conflict, unprocessable, type ApiError } from '../../errors.js';
import type { ObjectSchema } from '../../routing/json-schema.js';
import { isDeleted } from '../../routing/deleted.js';
import { findInOrganization, type OrganizationLookup } from '../../routing/tenancy.js';

/** What the streaming routes need beyond the core services. */
export interface StreamingRouteServices {
  /** The platform's regions. */
  vpcConfig: VpcConfig;
  /** The base of the schema registry and connector URLs. */
  publicUrl: PublicUrl;
  /** Opens users' sealed passwords for an audited reveal. */
  platformKey: Buffer;
  /** Absent where the workload runtime cannot run streaming clusters. */
  streamingRuntime: StreamingRuntime | undefined;
}

export const READ = ['streaming:read'];
export const WRITE = ['streaming:write'];
export const BASE = { area: 'resources', auth: 'authenticated', tags: ['streaming'] } as const;

export const CLUSTER_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$' } },
} as const satisfies ObjectSchema;

export interface ClusterParams {
  id: string;
}

/**
 * A cluster of the caller's organization; another organization's is a 404 like a missing one,
 * and so is a deleted one whose brokers are still being taken down.
 */
export async function findCluster(
  store: ObjectStore,
  principal: Principal,
  id: string,
): Promise<StreamingCluster> {
  return findInOrganization(store, principal, STREAMING_CLUSTERS, id);
}

/** How a streaming cluster is found in an organization; one being taken down is not there. */
export const STREAMING_CLUSTERS: OrganizationLookup<StreamingCluster> = {
  type: STREAMING_CLUSTER,
  objectName: objectNameOf,
  noun: 'streaming cluster',
  visible: (cluster) => Boolean(cluster.spec) && !isDeleted(cluster),
};

/**
 * A topic or user of the cluster by its Kafka name, or undefined (also when it is deleted): under
 * the name the API gives it, or, applied with kubectl, under a name of the applier's choosing.
 */
export async function findChild<T extends StreamingTopic | StreamingUser>(
  store: ObjectStore,
  type: ResourceType,
  cluster: StreamingCluster,
  kafkaName: string,
): Promise<T | undefined> {
  const isIt = (child: T) =>
    child.spec?.cluster === cluster.metadata.name && child.spec.name === kafkaName && !isDeleted(child);
  try {
    const child = await store.get<T>(
      type,
      cluster.metadata.namespace,
      childObjectName(cluster.metadata.name, kafkaName),
    );
    if (isIt(child)) return child;
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
  }
  const { items } = await store.list<T>(type, { namespace: cluster.metadata.namespace });
  return items.find(isIt);
}

/** The runtime and the cluster as it sees it, for reads of what the brokers hold; 409 without a runtime. */
export function brokersOf(
  runtime: StreamingRuntime | undefined,
  cluster: StreamingCluster,
): { runtime: StreamingRuntime; workload: StreamingClusterWorkload } {
  if (!runtime || cluster.metadata.deletionTimestamp || cluster.status?.phase !== 'running') {
    const phase = cluster.metadata.deletionTimestamp ? 'deleting' : (cluster.status?.phase ?? 'provisioning');
    throw conflict(`streaming cluster ${cluster.spec!.name} is ${phase}: its brokers cannot be asked`);
  }
  return { runtime, workload: clusterWorkload(cluster) };
}

/**
 * Why an object is not ready: its status message, or that of its Ready condition, where a spec
 * the controller refused (an invalid spec, a limit) is told.
 */
export function notReadyMessage(
  status: { message?: string; conditions?: Condition[] } | undefined,
): string | null {
  const ready = status?.conditions?.find((condition) => condition.type === 'Ready');
  return status?.message ?? (ready && ready.status !== 'True' ? ready.message : null);
}

/** A 422 naming the field, as the spec asks for a broken domain rule. */
export function invalidField(problem: Problem): ApiError {
  return unprocessable(`${problem.field}: ${problem.message}`, { details: { field: problem.field } });
}

/**
 * The 409 of a topic or user name in use. A deleted one no longer shows, but its name is its
 * object's until the brokers are done with it: the answer says to wait rather than that it exists.
 */
export function nameInUse(noun: 'topic' | 'user', name: string, beingDeleted: boolean): ApiError {
  return conflict(
    beingDeleted
      ? `${noun} ${name} is still being deleted; create it again once it is gone`
      : `a ${noun} named ${name} exists`,
    { details: { field: 'name' } },
  );
}
