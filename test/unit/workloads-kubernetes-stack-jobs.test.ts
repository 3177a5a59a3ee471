import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { createKubernetesRuntime, KUBERNETES_WORKLOAD_KINDS } from '../../workloads/kubernetes/index.js';
import { JOB, POD, SECRET } from '../../workloads/kubernetes/resource-types.js';
import {
  renderStackJob,
  renderStackJobSecret,
  stackJobObservation,
} from '../../workloads/kubernetes/stack-jobs.js';
import type { JobWorkload, WorkloadRuntime } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const NAMESPACE = 'org-acme';

const workload = (extra: Partial<JobWorkload> = {}): JobWorkload => ({
  id: 'stk_0123456789ab-seed-01',
  organization: NAMESPACE,
  image: 'postgres:16',
  command: ['psql', '-c', 'select 1'],
  env: { PGHOST: 'db', PGPASSWORD: 's3cret' },
  timeoutMs: 90_500,
  ...extra,
});

const condition = (type: string, reason?: string, message?: string) => ({
  type,
  status: 'True',
  ...(reason ? { reason } : {}),
  ...(message ? { message } : {}),
});

const jobWith = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'stk-0123456789ab-seed-01', namespace: NAMESPACE },
  status,
});

const podExited = (exitCode: number, creationTimestamp = '2030-01-01T00:00:00Z'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `pod-${exitCode}`, namespace: NAMESPACE, creationTimestamp },
  status: { containerStatuses: [{ state: { terminated: { exitCode } } }] },
});

describe('stack job objects', () => {
  it('runs the command once in the image, with its variables from its own Secret', () => {
    expect(renderStackJob(workload())).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'stk-0123456789ab-seed-01',
        namespace: NAMESPACE,
        labels: {
          'app.kubernetes.io/managed-by': 'cloudplane',
          'cloudplane.dev/stack-job': 'stk-0123456789ab-seed-01',
          'cloudplane.dev/organization': NAMESPACE,
        },
      },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: 91,
        template: {
          metadata: { labels: expect.any(Object) },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            containers: [
              {
                name: 'job',
                image: 'postgres:16',
                command: ['psql', '-c', 'select 1'],
                envFrom: [{ secretRef: { name: 'stk-0123456789ab-seed-01-env' } }],
              },
            ],
          },
        },
      },
    });
  });

  it('puts the variables in the Secret only', () => {
    const secret = renderStackJobSecret(workload()) as KubeObject & { data: Record<string, string> };
    expect(secret.metadata.name).toBe('stk-0123456789ab-seed-01-env');
    expect(Buffer.from(secret.data.PGPASSWORD!, 'base64').toString()).toBe('s3cret');
    expect(JSON.stringify(renderStackJob(workload()))).not.toContain('s3cret');
  });

  it('refuses a variable name the container cannot be given', () => {
    expect(() => renderStackJobSecret(workload({ env: { 'NOT-A-NAME': 'x' } }))).toThrow(
      expect.objectContaining({ reason: 'InvalidJob' }),
    );
  });

  it.each([
    ['running', {}, [], { state: 'running', exitCode: null }],
    [
      'succeeded',
      { conditions: [condition('Complete')], succeeded: 1 },
      [podExited(0)],
      { state: 'succeeded', exitCode: 0 },
    ],
    [
      'failed with its exit code',
      {
        conditions: [
          condition('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
        ],
      },
      [podExited(2, '2030-01-01T00:00:00Z'), podExited(5, '2029-01-01T00:00:00Z')],
      { state: 'failed', exitCode: 2, message: 'exited with code 2' },
    ],
    [
      'timed out',
      {
        conditions: [
          condition('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'),
        ],
      },
      [],
      { state: 'failed', exitCode: null, message: 'timed out after 90.5s' },
    ],
  ])('observes a Job that %s', (_case, status, pods, expected) => {
    expect(stackJobObservation(jobWith(status), pods, 90_500)).toMatchObject({
      realization: 'real',
      ...expected,
    });
  });
});

describe('stack jobs on the embedded store, the test playing the Job controller', () => {
  let store: EmbeddedStore;
  let runtime: WorkloadRuntime;

  beforeEach(() => {
    store = openEmbeddedStore({ path: ':memory:', kinds: [...KUBERNETES_WORKLOAD_KINDS] });
    runtime = createKubernetesRuntime({ store, logger: capturedLogger().logger });
  });
  afterEach(async () => {
    await store.close();
  });

  async function finish(exitCode: number) {
    const job = await store.get(JOB, NAMESPACE, 'stk-0123456789ab-seed-01');
    await store.updateStatus(JOB, {
      ...job,
      status:
        exitCode === 0
          ? { conditions: [condition('Complete')], succeeded: 1 }
          : { conditions: [condition('Failed')] },
    });
    await store.create(POD, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'stk-0123456789ab-seed-01-x7k2p',
        namespace: NAMESPACE,
        labels: { 'job-name': job.metadata.name },
      },
      spec: { containers: [{ name: 'job', image: 'postgres:16' }] },
    });
    const pod = await store.get(POD, NAMESPACE, 'stk-0123456789ab-seed-01-x7k2p');
    await store.updateStatus(POD, { ...pod, status: podExited(exitCode).status });
  }

  it('starts once, observes the exit code, and drops the Secret once the Job ended', async () => {
    expect(await runtime.jobs.observe(workload())).toBeUndefined();
    expect(await runtime.jobs.start(workload())).toMatchObject({ realization: 'real', state: 'running' });
    expect(await runtime.jobs.start(workload())).toMatchObject({ state: 'running' });
    expect((await store.list(JOB, { namespace: NAMESPACE })).items).toHaveLength(1);
    await store.get(SECRET, NAMESPACE, 'stk-0123456789ab-seed-01-env');

    await finish(3);
    expect(await runtime.jobs.observe(workload())).toMatchObject({ state: 'failed', exitCode: 3 });
    await expect(store.get(SECRET, NAMESPACE, 'stk-0123456789ab-seed-01-env')).rejects.toMatchObject({
      reason: 'NotFound',
    });
    expect(await runtime.jobs.start(workload())).toMatchObject({ state: 'failed', exitCode: 3 });
    expect(await runtime.jobs.logs(workload())).toBe('');
  });

  it('removes the Job and its Secret, and removing again is fine', async () => {
    await runtime.jobs.start(workload());
    await runtime.jobs.remove(workload());
    await runtime.jobs.remove(workload());
    expect(await runtime.jobs.observe(workload())).toBeUndefined();
    expect((await store.list(SECRET, { namespace: NAMESPACE })).items).toEqual([]);
  });

  it('refuses releases when no helm is configured', async () => {
    await expect(
      runtime.releases.install({
        id: 'stk_0123456789ab-web',
        organization: NAMESPACE,
        chart: 'webapp',
        values: {},
        timeoutMs: 1_000,
      }),
    ).rejects.toMatchObject({
      reason: 'HelmFailed',
      message: 'helm is not installed: set CLOUDPLANE_HELM_BINARY',
    });
  });
});
