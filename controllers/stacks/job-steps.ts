/**
 * The bootstrap phase: one-shot jobs with their environment resolved from secrets and resources
 * when they start. A job runs once per execution that applies it (again only when its entry
 * changed); its outcome and log are copied into the data plane, then the runtime forgets it.
 */
import type { JobObservation, JobWorkload } from '../../workloads/runtime.js';
import { removeEntry, removeJobRun, saveEntry, saveJobRun, type JobRun } from './records.js';
import { digestOf, resolveNow, StepFailure, type StepContext, type StepOutcome } from './step-context.js';
import { timeoutMsOf, type TemplateJob } from './template.js';

const POLL_MS = 1_000;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The runtime's id of the job in this execution: a Kubernetes name (63 characters of a-z, 0-9
 * and -) that names the stack, the job and the execution.
 */
export function jobIdOf(context: Pick<StepContext, 'stack' | 'execution'>, name: string): string {
  const readable = `${context.stack.metadata.name}-${name}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const suffix = digestOf([context.stack.metadata.uid, name, context.execution.metadata.name]).slice(0, 8);
  return `${readable.slice(0, 63 - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

function workloadOf(
  context: StepContext,
  name: string,
  job: TemplateJob,
  env: Record<string, string>,
): JobWorkload {
  return {
    id: jobIdOf(context, name),
    organization: context.key.namespace,
    image: job.image,
    command: job.command,
    env,
    timeoutMs: timeoutMsOf(job.timeout, DEFAULT_TIMEOUT_MS),
  };
}

function runOf(context: StepContext, name: string, observation: JobObservation, logs: string): JobRun {
  const status =
    observation.state === 'recorded'
      ? 'skipped'
      : observation.state === 'succeeded'
        ? 'succeeded'
        : observation.state;
  return {
    name,
    execution: context.execution.metadata.name,
    status,
    exitCode: observation.exitCode,
    ...(observation.message ? { message: observation.message } : {}),
    logs,
    ...(observation.startedAt ? { startedAt: observation.startedAt } : {}),
    ...(observation.completedAt ? { completedAt: observation.completedAt } : {}),
  };
}

export async function applyJob(context: StepContext, name: string, job: TemplateJob): Promise<StepOutcome> {
  // The environment is resolved when the job starts and given only to the runtime; its digest
  // tells whether what the job works on changed (a replaced database, a new secret).
  const resolved = await resolveNow(context, { ...job.env, ...job.secrets }, `bootstrap.${name}`);
  const env = resolved.value as Record<string, unknown>;
  for (const [variable, value] of Object.entries(env)) {
    if (typeof value !== 'string')
      throw new StepFailure(`bootstrap.${name}.secrets.${variable}: not a string`);
  }
  const envDigest = digestOf([job, env]);
  const previous = context.entries.get(`bootstrap.${name}`);
  if (previous?.attributes.env_digest === envDigest && previous.attributes.status !== 'failed') {
    return { state: 'done', message: 'unchanged since it ran' };
  }
  const workload = workloadOf(context, name, job, env as Record<string, string>);
  const { jobs } = context.runtime;

  const observation = (await jobs.observe(workload)) ?? (await jobs.start(workload));
  if (observation.state === 'running') {
    await saveJobRun(context.database, context.key, runOf(context, name, observation, ''));
    return { state: 'waiting', afterMs: POLL_MS, message: `bootstrap.${name} is running` };
  }
  const logs = await jobs.logs(workload);
  await saveJobRun(context.database, context.key, runOf(context, name, observation, logs));
  await jobs.remove(workload);
  const attributes: Record<string, string> = {
    job_id: workload.id,
    env_digest: envDigest,
    status: observation.state === 'recorded' ? 'skipped' : observation.state,
    ...(observation.exitCode === null ? {} : { exit_code: String(observation.exitCode) }),
  };
  await saveEntry(
    context.database,
    context.key,
    { section: 'bootstrap', name, config: job, attributes },
    context.clock.now(),
  );
  if (observation.state === 'failed') {
    const code = observation.exitCode === null ? '' : ` with exit code ${observation.exitCode}`;
    throw new StepFailure(
      `bootstrap.${name} failed${code}${observation.message ? `: ${observation.message}` : ''}`,
    );
  }
  return { state: 'done', ...(observation.message ? { message: observation.message } : {}) };
}

export async function removeJob(context: StepContext, name: string): Promise<StepOutcome> {
  const entry = context.entries.get(`bootstrap.${name}`);
  const id = entry?.attributes.job_id;
  const job = entry?.config as TemplateJob | undefined;
  if (id && job) {
    await context.runtime.jobs.remove({
      id,
      organization: context.key.namespace,
      image: job.image,
      command: job.command,
      env: {},
      timeoutMs: timeoutMsOf(job.timeout, DEFAULT_TIMEOUT_MS),
    });
  }
  await removeJobRun(context.database, context.key, name);
  await removeEntry(context.database, context.key, 'bootstrap', name);
  return { state: 'done' };
}
