/**
 * What the objects of a workload say about it, as pure functions: statuses in, an observation
 * out. Only the cluster is asked; nothing is remembered between calls.
 */
import type { Condition, KubeObject } from '../../control-plane/types.js';
import type { DatabaseAccess, DatabaseObservation, ShareObservation } from '../runtime.js';
import type { KubernetesEngine } from './engines/index.js';
import { versionOfImage } from './render.js';
import { CREDENTIALS_VERSION_ANNOTATION } from '../../crds/annotations.js';

export interface CnpgClusterStatus {
  readyInstances?: number;
  phase?: string;
  phaseReason?: string;
  image?: string;
  conditions?: Condition[];
  secretsResourceVersion?: { applicationSecretVersion?: string };
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
}

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

/** CloudNativePG's phase of a cluster with nothing left to do. */
export const CNPG_HEALTHY = 'Cluster in healthy state';

/** The value of one key of a Secret, decoded. */
export function secretValue(secret: SecretObject | undefined, key: string): string | undefined {
  const encoded = secret?.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

/** The objects one database is made of, as read (absent: not there). */
export interface DatabaseObjects {
  secret?: SecretObject;
  /** The CloudNativePG Cluster (PostgreSQL) or the StatefulSet (the other engines). */
  server?: KubeObject;
  /** The other engines' Service; CloudNativePG makes its own. */
  service?: KubeObject;
  /** What serves it: the engine's `runsAs`. */
  runsAs: KubernetesEngine['runsAs'];
  /** The version the image was asked for, when the server reports none. */
  imageVersion?: string;
}

const degraded = (message: string): DatabaseObservation => ({
  realization: 'real',
  state: 'degraded',
  message,
});

/** Why the Cluster is not ready yet, or nothing when it is, with the password of `secret` applied. */
function cnpgPending(cluster: KubeObject, secret: SecretObject): string | undefined {
  const status = (cluster.status ?? {}) as CnpgClusterStatus;
  const wanted = (cluster.spec as { instances?: number } | undefined)?.instances ?? 1;
  const readyCondition = status.conditions?.find((condition) => condition.type === 'Ready');
  if (
    (status.readyInstances ?? 0) < wanted ||
    readyCondition?.status !== 'True' ||
    status.phase !== CNPG_HEALTHY
  ) {
    const phase = status.phase
      ? `${status.phase}${status.phaseReason ? `: ${status.phaseReason}` : ''}`
      : 'not started';
    return `CloudNativePG: ${status.readyInstances ?? 0} of ${wanted} instances ready (${phase})`;
  }
  if (status.secretsResourceVersion?.applicationSecretVersion !== secret.metadata.resourceVersion) {
    return 'CloudNativePG has not applied the current password yet';
  }
  return undefined;
}

/** Why the StatefulSet's pod is not ready yet with the current Secret, or nothing when it is. */
function statefulSetPending(statefulSet: KubeObject, secret: SecretObject): string | undefined {
  const status = (statefulSet.status ?? {}) as StatefulSetStatus;
  const template = (
    statefulSet.spec as { template?: { metadata?: { annotations?: Record<string, string> } } }
  )?.template;
  if (template?.metadata?.annotations?.[CREDENTIALS_VERSION_ANNOTATION] !== secret.metadata.resourceVersion) {
    return 'the server has not been restarted with the current password yet';
  }
  const rolledOut =
    (status.observedGeneration ?? 0) >= (statefulSet.metadata.generation ?? 0) &&
    (status.updatedReplicas ?? 0) >= 1 &&
    (status.currentRevision === undefined || status.currentRevision === status.updateRevision);
  if (!rolledOut) return 'the server is being started with its current settings';
  if ((status.readyReplicas ?? 0) < 1) return 'the server is starting; its pod is not ready';
  return undefined;
}

/**
 * `ready` once the server runs with the Secret's password and that password is the caller's;
 * `provisioning` while the operators work; `degraded` when a part is missing or the Secret holds
 * another password (ensuring sets it again).
 */
export function databaseObservation(
  objects: DatabaseObjects,
  password: string,
  access: DatabaseAccess,
): DatabaseObservation {
  const { secret, server, service } = objects;
  if (!server)
    return degraded(
      `its ${objects.runsAs === 'CloudNativePG' ? 'CloudNativePG Cluster' : 'StatefulSet'} is missing`,
    );
  if (!secret) return degraded('its credentials Secret is missing');
  if (objects.runsAs === 'StatefulSet' && !service) return degraded('its Service is missing');
  if (secretValue(secret, 'password') !== password) {
    return degraded('its Secret holds another password; ensuring the database sets it again');
  }
  const status = (server.status ?? {}) as CnpgClusterStatus;
  const version = versionOfImage(status.image) ?? objects.imageVersion;
  const pending =
    objects.runsAs === 'CloudNativePG' ? cnpgPending(server, secret) : statefulSetPending(server, secret);
  const common = { realization: 'real' as const, access, ...(version ? { version } : {}) };
  return pending ? { ...common, state: 'provisioning', message: pending } : { ...common, state: 'ready' };
}

export interface ClaimStatus {
  phase?: string;
  capacity?: { storage?: string };
}

/** A share is ready once its claim is bound; pods of the organization mount it by claim name. */
export function shareObservation(claim: KubeObject | undefined, usedBytes: number): ShareObservation {
  if (!claim)
    return {
      realization: 'real',
      state: 'degraded',
      message: 'its PersistentVolumeClaim is gone',
      usedBytes: 0,
    };
  const status = (claim.status ?? {}) as ClaimStatus;
  const where = `the ReadWriteMany PersistentVolumeClaim ${claim.metadata.name} in namespace ${claim.metadata.namespace}`;
  if (status.phase !== 'Bound') {
    return {
      realization: 'real',
      state: 'provisioning',
      message: `${where} is ${status.phase ?? 'not yet'} bound`,
      usedBytes: 0,
    };
  }
  return {
    realization: 'real',
    state: 'ready',
    message: `${where}: pods of the organization mount it by claim name`,
    mount: { server: `${claim.metadata.namespace}.pvc`, path: claim.metadata.name },
    usedBytes,
  };
}

export interface JobStatus {
  succeeded?: number;
  failed?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

export type JobOutcome = { done: false } | { done: true; succeeded: boolean; reason?: string };

/** Whether a Job has finished, by its `Complete` and `Failed` conditions (or its counters). */
export function jobOutcome(job: KubeObject): JobOutcome {
  const status = (job.status ?? {}) as JobStatus;
  const condition = (type: string) =>
    status.conditions?.find((each) => each.type === type && each.status === 'True');
  const failed = condition('Failed');
  if (failed)
    return { done: true, succeeded: false, reason: failed.message ?? failed.reason ?? 'the Job failed' };
  if (condition('Complete') || (status.succeeded ?? 0) > 0) return { done: true, succeeded: true };
  return { done: false };
}

export interface CnpgBackupStatus {
  phase?: string;
  error?: string;
}

/** A CloudNativePG Backup's outcome, by its phase. */
export function cnpgBackupOutcome(backup: KubeObject): JobOutcome {
  const status = (backup.status ?? {}) as CnpgBackupStatus;
  if (status.phase === 'completed') return { done: true, succeeded: true };
  if (status.phase === 'failed' || status.phase === 'invalid backup definition') {
    return { done: true, succeeded: false, reason: status.error ?? status.phase };
  }
  return { done: false };
}

/** The termination message of a finished Job's pod: what its script reported. */
export function terminationMessage(pods: KubeObject[]): string | undefined {
  for (const pod of pods) {
    const statuses = (
      pod.status as { containerStatuses?: { state?: { terminated?: { message?: string } } }[] }
    )?.containerStatuses;
    const message = statuses?.find((each) => each.state?.terminated?.message)?.state?.terminated?.message;
    if (message) return message.trim();
  }
  return undefined;
}
