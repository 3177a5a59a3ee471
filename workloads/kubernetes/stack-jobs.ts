/**
 * Stacks' bootstrap jobs in a cluster: a `batch/v1` Job per job, its variables in a Secret of
 * its own that goes once the Job has finished. The cluster keeps the state: any operator
 * replica observes the same, and a restart loses nothing.
 */
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
import { kubernetesName } from '../helm.js';
import { WorkloadError, type JobObservation, type JobRuntime, type JobWorkload } from '../runtime.js';
import { apply, read, refused, removeObject } from './objects.js';
import { jobOutcome, type JobStatus } from './readiness.js';
import { MANAGED_BY_LABEL } from './render.js';
import { JOB, POD, SECRET } from './resource-types.js';
import { ORGANIZATION_LABEL, STACK_JOB_LABEL } from '../../crds/annotations.js';

/** A Job's name: its pods carry it in a label, which allows 63 characters. */
const JOB_NAME_MAX = 63;
/** What `logs` reads of a pod's log at most. */
const LOG_LIMIT_BYTES = 1_048_576;

/** Reads a pod's log: the `log` subresource, which the `ObjectStore` does not serve. */
export type PodLogReader = (namespace: string, pod: string, limitBytes: number) => Promise<string>;

/**
 * A `PodLogReader` on the kubeconfig the operator's store was built with. The client library is
 * loaded on the first read: it is half a second of start-up, and the embedded mode never needs it.
 */
export function podLogReader(kubeConfig: KubeConfig): PodLogReader {
  let core: Promise<CoreV1Api> | undefined;
  return async (namespace, name, limitBytes) => {
    core ??= import('@kubernetes/client-node').then(({ CoreV1Api }) => kubeConfig.makeApiClient(CoreV1Api));
    return (await core).readNamespacedPodLog({ namespace, name, limitBytes });
  };
}

export const stackJobName = (id: string): string => kubernetesName(id, JOB_NAME_MAX);
export const stackJobSecretName = (id: string): string => `${stackJobName(id)}-env`;

function labelsOf(job: JobWorkload): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: 'cloudplane',
    // The name, not the id: a label value is limited to 63 characters of a narrower alphabet.
    [STACK_JOB_LABEL]: stackJobName(job.id),
    [ORGANIZATION_LABEL]: job.organization,
  };
}

/** The Secret the Job reads its environment from; variable names must be ones `envFrom` takes. */
export function renderStackJobSecret(job: JobWorkload): KubeObject {
  const data: Record<string, string> = {};
  for (const [name, value] of Object.entries(job.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new WorkloadError('InvalidJob', `${JSON.stringify(name)} is not an environment variable name`);
    }
    data[name] = Buffer.from(value, 'utf8').toString('base64');
  }
  return {
    apiVersion: 'v1',
    kind: SECRET.kind,
    metadata: { name: stackJobSecretName(job.id), namespace: job.organization, labels: labelsOf(job) },
    type: 'Opaque',
    data,
  } as KubeObject;
}

/**
 * One pod, never retried (a bootstrap job may not be idempotent), ended by the cluster when its
 * time is up. No service account token: the job is the stack's, not the platform's.
 */
export function renderStackJob(job: JobWorkload): KubeObject {
  const labels = labelsOf(job);
  return {
    apiVersion: `${JOB.group}/${JOB.version}`,
    kind: JOB.kind,
    metadata: { name: stackJobName(job.id), namespace: job.organization, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: Math.max(1, Math.ceil(job.timeoutMs / 1000)),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'job',
              image: job.image,
              command: job.command,
              envFrom: [{ secretRef: { name: stackJobSecretName(job.id) } }],
            },
          ],
        },
      },
    },
  };
}

interface JobStatusTimes extends JobStatus {
  startTime?: string;
  completionTime?: string;
}

interface PodStatus {
  containerStatuses?: { state?: { terminated?: { exitCode?: number; finishedAt?: string } } }[];
}

/** The pod made last: a Job that is not retried has one, unless its node was lost. */
function newestPod(pods: KubeObject[]): KubeObject | undefined {
  return [...pods].sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
  )[0];
}

/** The exit code of the Job's container, once its pod has terminated. */
export function exitCodeOf(pods: KubeObject[]): number | null {
  const newest = newestPod(pods);
  const code = (newest?.status as PodStatus | undefined)?.containerStatuses?.[0]?.state?.terminated?.exitCode;
  return code ?? null;
}

/** What a Job and its pods say about the job. */
export function stackJobObservation(job: KubeObject, pods: KubeObject[], timeoutMs: number): JobObservation {
  const status = (job.status ?? {}) as JobStatusTimes;
  const times = {
    ...(status.startTime ? { startedAt: status.startTime } : {}),
    ...(status.completionTime ? { completedAt: status.completionTime } : {}),
  };
  const outcome = jobOutcome(job);
  if (!outcome.done) return { realization: 'real', state: 'running', exitCode: null, ...times };
  const exitCode = exitCodeOf(pods);
  if (outcome.succeeded) return { realization: 'real', state: 'succeeded', exitCode, ...times };
  const failed = status.conditions?.find((each) => each.type === 'Failed' && each.status === 'True');
  const message =
    failed?.reason === 'DeadlineExceeded'
      ? `timed out after ${timeoutMs / 1000}s`
      : exitCode !== null
        ? `exited with code ${exitCode}`
        : (outcome.reason ?? 'the Job failed');
  return { realization: 'real', state: 'failed', exitCode, message, ...times };
}

export function kubernetesStackJobs(store: ObjectStore, podLogs: PodLogReader | undefined): JobRuntime {
  const podsOf = async (job: JobWorkload): Promise<KubeObject[]> => {
    const pods = await store
      .list(POD, { namespace: job.organization, labelSelector: `job-name=${stackJobName(job.id)}` })
      .catch(refused(`list the pods of Job ${stackJobName(job.id)}`));
    return pods.items;
  };

  async function observe(job: JobWorkload): Promise<JobObservation | undefined> {
    const found = await read(store, JOB, job.organization, stackJobName(job.id));
    if (!found) return undefined;
    const outcome = jobOutcome(found);
    const pods = outcome.done ? await podsOf(job) : [];
    // Its variables are needed no more once it ended; they may hold secrets.
    if (outcome.done) await removeObject(store, SECRET, job.organization, stackJobSecretName(job.id));
    return stackJobObservation(found, pods, job.timeoutMs);
  }

  return {
    async start(job) {
      const existing = await observe(job);
      if (existing) return existing;
      const secret = renderStackJobSecret(job);
      await apply(store, SECRET, secret, (object) => ({ data: (object as { data?: unknown }).data }));
      try {
        await store.create(JOB, renderStackJob(job));
      } catch (error) {
        // Another replica started it first: it runs once, and this answers what it does.
        const started = await observe(job);
        if (started) return started;
        return refused(`create Job ${stackJobName(job.id)}`)(error);
      }
      return { realization: 'real', state: 'running', exitCode: null, startedAt: new Date().toISOString() };
    },

    observe,

    async logs(job) {
      if (!podLogs) return '';
      const pod = newestPod(await podsOf(job));
      if (!pod) return '';
      return podLogs(job.organization, pod.metadata.name, LOG_LIMIT_BYTES).catch(
        refused(`read the log of pod ${pod.metadata.name}`),
      );
    },

    async remove(job) {
      await removeObject(store, JOB, job.organization, stackJobName(job.id));
      await removeObject(store, SECRET, job.organization, stackJobSecretName(job.id));
    },
  };
}
