/**
 * One-shot Jobs: dumps, loads, share archives and measurements. The runtime waits for each and
 * reads what its script reported from the pod's termination message; the Job goes afterwards.
 */
import { isStoreError, type KubeObject, type ObjectStore } from '../../control-plane/types.js';
import { WorkloadError } from '../runtime.js';
import { jobOutcome, terminationMessage, type JobOutcome } from './readiness.js';
import { renderJob, type JobPlan } from './render.js';
import { JOB, POD } from './resource-types.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until it reports done, or throws `reason` after `timeoutMs`. */
export async function waitFor(
  read: () => Promise<JobOutcome>,
  options: { timeoutMs: number; pollIntervalMs: number; reason: string; what: string },
): Promise<{ succeeded: boolean; reason?: string }> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const outcome = await read();
    if (outcome.done) return outcome;
    if (Date.now() >= deadline)
      throw new WorkloadError(options.reason, `${options.what} did not finish in time`);
    await sleep(options.pollIntervalMs);
  }
}

export interface JobRunner {
  /** Runs the plan to its end; its termination message, or a `WorkloadError(reason)` when it failed. */
  run(plan: JobPlan, reason: string): Promise<string | undefined>;
}

export function jobRunner(
  store: ObjectStore,
  timing: { timeoutMs: number; pollIntervalMs: number },
): JobRunner {
  const remove = async (namespace: string, name: string) => {
    await store.delete(JOB, namespace, name, { propagationPolicy: 'Background' }).catch((error: unknown) => {
      if (!isStoreError(error, 'NotFound')) throw error;
    });
  };

  /** A Job left by an earlier attempt (the same backup run again) is replaced. */
  async function create(job: KubeObject): Promise<void> {
    const { namespace, name } = job.metadata;
    await remove(namespace!, name);
    const deadline = Date.now() + timing.timeoutMs;
    for (;;) {
      try {
        await store.create(JOB, job);
        return;
      } catch (error) {
        if (!isStoreError(error, 'AlreadyExists') || Date.now() >= deadline) throw error;
        await sleep(timing.pollIntervalMs);
      }
    }
  }

  return {
    async run(plan, reason) {
      await create(renderJob(plan));
      try {
        const outcome = await waitFor(() => store.get(JOB, plan.namespace, plan.name).then(jobOutcome), {
          ...timing,
          reason,
          what: `Job ${plan.name}`,
        });
        const pods = await store.list(POD, {
          namespace: plan.namespace,
          labelSelector: `job-name=${plan.name}`,
        });
        const message = terminationMessage(pods.items);
        if (!outcome.succeeded) {
          throw new WorkloadError(
            reason,
            `Job ${plan.name} failed: ${message ?? outcome.reason ?? 'no reason given'}`,
          );
        }
        return message;
      } finally {
        await remove(plan.namespace, plan.name);
      }
    },
  };
}
