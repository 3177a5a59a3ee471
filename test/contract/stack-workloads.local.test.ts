import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Env } from '../../config/env.js';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { HELM_MISSING } from '../../workloads/helm.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { RECORDED_JOB } from '../../workloads/local/jobs.js';
import type {
  JobObservation,
  JobWorkload,
  ReleaseWorkload,
  WorkloadError,
  WorkloadRuntime,
} from '../../workloads/runtime.js';
import { packageRoot } from '../../crds/registry.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const FIXTURE_CHART = path.join(packageRoot(import.meta.url), 'test/fixtures/charts/webapp');
const HELM = path.join(packageRoot(import.meta.url), '.tools/bin/helm');
const helmPresent = existsSync(HELM);
if (!helmPresent) console.warn(`SKIPPING helm template tests: ${HELM} is missing; run npm run tools`);

/** Enough for `sh`, `env`, `sleep`, `head` and `tr`, and nothing of the platform's environment. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

let sequence = 0;
const job = (extra: Partial<JobWorkload> = {}): JobWorkload => ({
  id: `stk_test-seed-${++sequence}`,
  organization: 'org-stack',
  image: 'alpine:3.20',
  command: ['sh', '-c', 'true'],
  env: { PATH: SYSTEM_PATH },
  timeoutMs: 10_000,
  ...extra,
});

async function temporaryDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-stacks-'));
}

function runtimeWith(dir: string, env: Env): WorkloadRuntime {
  return createLocalRuntime({
    config: workloadsConfig(env, { dataDir: dir }),
    logger: capturedLogger().logger,
  });
}

/** Observes the job until it is no longer running. */
async function ended(runtime: WorkloadRuntime, workload: JobWorkload): Promise<JobObservation> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const observation = await runtime.jobs.observe(workload);
    if (observation?.state !== 'running') return observation!;
    if (Date.now() > deadline) throw new Error(`job ${workload.id} still running`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether a process still runs: a zombie waiting for a parent that never reaps counts as gone. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('stacks on the local runtime', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await temporaryDir();
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('jobs, recorded by default', () => {
    let runtime: WorkloadRuntime;
    beforeEach(() => {
      runtime = runtimeWith(path.join(dir, 'recorded'), {});
    });
    afterEach(() => runtime.close());

    it('records a job without running it and says how to run it', async () => {
      const marker = path.join(dir, 'recorded-marker');
      const workload = job({ command: ['sh', '-c', `touch ${marker}`] });
      const expected = { realization: 'recorded', state: 'recorded', exitCode: null, message: RECORDED_JOB };
      expect(await runtime.jobs.start(workload)).toEqual(expected);
      expect(await runtime.jobs.observe(workload)).toEqual(expected);
      expect(await runtime.jobs.logs(workload)).toBe('');
      expect(existsSync(marker)).toBe(false);
    });

    it('knows nothing of a job never started', async () => {
      expect(await runtime.jobs.observe(job())).toBeUndefined();
    });
  });

  describe('jobs run as local processes when enabled', () => {
    let runtime: WorkloadRuntime;
    let dataDir: string;
    beforeEach(async () => {
      dataDir = await fs.mkdtemp(path.join(dir, 'enabled-'));
      runtime = runtimeWith(dataDir, {
        CLOUDPLANE_LOCAL_JOBS: 'enabled',
        CLOUDPLANE_JOB_LOG_LIMIT_BYTES: '1024',
      });
    });
    afterEach(() => runtime.close());
    const folderOf = (workload: JobWorkload) => path.join(dataDir, 'workloads', 'jobs', workload.id);

    it.each([
      { exit: 0, state: 'succeeded', message: 'ran locally; image alpine:3.20 ignored' },
      { exit: 3, state: 'failed', message: 'exited with code 3; ran locally; image alpine:3.20 ignored' },
    ])('answers $state with exit code $exit and what it printed', async ({ exit, state, message }) => {
      const workload = job({
        command: ['sh', '-c', `echo "$GREETING"; echo oops >&2; exit ${exit}`],
        env: { GREETING: 'hello from the stack' },
      });
      const started = await runtime.jobs.start(workload);
      expect(started).toMatchObject({ realization: 'real', state: 'running', exitCode: null });
      const observation = await ended(runtime, workload);
      expect(observation).toMatchObject({ realization: 'real', state, exitCode: exit, message });
      expect(observation.completedAt).toBeDefined();
      expect(await runtime.jobs.logs(workload)).toBe('hello from the stack\noops\n');
    });

    it('gives the process exactly the variables of the job', async () => {
      const workload = job({ command: ['env'], env: { FIRST: 'one', SECOND: 'two words' } });
      await runtime.jobs.start(workload);
      expect(await ended(runtime, workload)).toMatchObject({ state: 'succeeded' });
      const lines = (await runtime.jobs.logs(workload)).trim().split('\n').sort();
      expect(lines).toEqual(['FIRST=one', 'SECOND=two words']);
    });

    it('runs in a folder of its own, removed with the job', async () => {
      const workload = job({ command: ['sh', '-c', 'pwd; echo kept > file'] });
      await runtime.jobs.start(workload);
      await ended(runtime, workload);
      expect((await runtime.jobs.logs(workload)).trim()).toBe(await fs.realpath(folderOf(workload)));
      expect(existsSync(path.join(folderOf(workload), 'file'))).toBe(true);
      await runtime.jobs.remove(workload);
      expect(existsSync(folderOf(workload))).toBe(false);
      expect(await runtime.jobs.observe(workload)).toBeUndefined();
      await runtime.jobs.remove(workload);
    });

    it('kills the whole process group when the time is up', async () => {
      const workload = job({
        command: ['sh', '-c', 'sleep 30 & echo $! > child.pid; sleep 30'],
        timeoutMs: 500,
      });
      await runtime.jobs.start(workload);
      const observation = await ended(runtime, workload);
      expect(observation).toMatchObject({ state: 'failed', exitCode: null });
      expect(observation.message).toMatch(/^timed out after 0\.5s/);
      const child = Number(await fs.readFile(path.join(folderOf(workload), 'child.pid'), 'utf8'));
      expect(child).toBeGreaterThan(0);
      expect(isRunning(child)).toBe(false);
    });

    it('runs a job started twice only once', async () => {
      const counter = path.join(dataDir, 'runs');
      const workload = job({ command: ['sh', '-c', `echo run >> ${counter}`] });
      const [first, second] = await Promise.all([runtime.jobs.start(workload), runtime.jobs.start(workload)]);
      expect(first.state).toBe('running');
      expect(second.state).toBe('running');
      await ended(runtime, workload);
      expect((await runtime.jobs.start(workload)).state).toBe('succeeded');
      expect(await fs.readFile(counter, 'utf8')).toBe('run\n');
    });

    it('keeps the first part of a long output and says where it was cut', async () => {
      const workload = job({ command: ['sh', '-c', "head -c 5000 /dev/zero | tr '\\0' x"] });
      await runtime.jobs.start(workload);
      expect(await ended(runtime, workload)).toMatchObject({ state: 'succeeded' });
      expect(await runtime.jobs.logs(workload)).toBe(`${'x'.repeat(1024)}\n… log truncated at 1024 bytes\n`);
    });

    it('fails a job whose command is not there', async () => {
      const workload = job({ command: ['no-such-command-here', '--flag'] });
      await runtime.jobs.start(workload);
      expect(await ended(runtime, workload)).toMatchObject({
        state: 'failed',
        exitCode: null,
        message: 'command not found: no-such-command-here',
      });
    });

    it('stops a run an earlier platform process left before starting the job again', async () => {
      const workload = job({ command: ['sh', '-c', 'echo $$ > ../orphan.pid; sleep 30'] });
      await runtime.jobs.start(workload);
      const orphanPid = path.join(dataDir, 'workloads', 'jobs', 'orphan.pid');
      await vi.waitFor(() => expect(existsSync(orphanPid)).toBe(true));
      const orphan = Number(await fs.readFile(orphanPid, 'utf8'));
      expect(isRunning(orphan)).toBe(true);

      // A new process on the same data dir knows nothing of the first one's jobs.
      const restarted = runtimeWith(dataDir, { CLOUDPLANE_LOCAL_JOBS: 'enabled' });
      try {
        expect(await restarted.jobs.observe(workload)).toBeUndefined();
        await restarted.jobs.start({ ...workload, command: ['true'] });
        await vi.waitFor(() => expect(isRunning(orphan)).toBe(false));
        expect(await ended(restarted, workload)).toMatchObject({ state: 'succeeded' });
      } finally {
        await restarted.close();
      }
    });

    it('kills what still runs when the runtime closes', async () => {
      const workload = job({ command: ['sleep', '30'] });
      await runtime.jobs.start(workload);
      await runtime.close();
      expect(await runtime.jobs.observe(workload)).toMatchObject({ state: 'failed', exitCode: null });
    });
  });

  describe('releases', () => {
    let chartsDir: string;
    let dataDir: string;
    let runtime: WorkloadRuntime;
    const release = (extra: Partial<ReleaseWorkload> = {}): ReleaseWorkload => ({
      id: 'stk_0123456789ab-web',
      organization: 'org-stack',
      chart: 'webapp',
      values: {
        image: 'registry.example/web:2',
        database: { host: 'db-0123.org-stack.svc', password: 's3cret' },
      },
      timeoutMs: 30_000,
      ...extra,
    });
    const releasesDir = () => path.join(dataDir, 'workloads', 'releases');

    beforeAll(async () => {
      chartsDir = await fs.mkdtemp(path.join(dir, 'charts-'));
      await fs.cp(FIXTURE_CHART, path.join(chartsDir, 'webapp'), { recursive: true });
      await fs.mkdir(path.join(chartsDir, 'not-a-chart'));
    });
    beforeEach(async () => {
      dataDir = await fs.mkdtemp(path.join(dir, 'releases-'));
      runtime = runtimeWith(dataDir, {
        CLOUDPLANE_STACK_CHARTS_DIR: chartsDir,
        CLOUDPLANE_HELM_BINARY: HELM,
      });
    });
    afterEach(() => runtime.close());

    it.skipIf(!helmPresent)('renders the chart with the values and records it', async () => {
      const observation = await runtime.releases.install(release());
      expect(observation).toMatchObject({
        realization: 'recorded',
        state: 'recorded',
        release: 'stk-0123456789ab-web',
        namespace: 'org-stack',
        message: 'rendered with helm template; services are recorded in the embedded mode, not run',
      });
      expect(observation.manifest).toContain('kind: Deployment');
      expect(observation.manifest).toContain("value: 'db-0123.org-stack.svc'");
      expect(observation.manifest).toContain("image: 'registry.example/web:2'");
      expect(observation.manifest).toContain("namespace: 'org-stack'");
      expect(await fs.readdir(releasesDir())).toEqual([]);
      await runtime.releases.uninstall(release());
    });

    it.skipIf(!helmPresent)('answers HelmFailed with what helm said', async () => {
      const refused = runtime.releases.install(release({ chart: 'not-a-chart' }));
      await expect(refused).rejects.toMatchObject({ reason: 'HelmFailed' });
      const error = (await refused.catch((caught: unknown) => caught)) as WorkloadError;
      expect(error.message).toMatch(/Chart\.yaml/);
      expect(error.message).not.toContain('s3cret');
      expect(await fs.readdir(releasesDir())).toEqual([]);
    });

    it('refuses a chart outside the charts directory', async () => {
      await expect(runtime.releases.install(release({ chart: FIXTURE_CHART }))).rejects.toMatchObject({
        reason: 'ChartNotFound',
      });
    });

    it('records a release without a manifest when there is no helm', async () => {
      const config: WorkloadsConfig = {
        ...workloadsConfig({ CLOUDPLANE_STACK_CHARTS_DIR: chartsDir }, { dataDir }),
        helmBinary: undefined,
      };
      const withoutHelm = createLocalRuntime({ config, logger: capturedLogger().logger });
      expect(await withoutHelm.releases.install(release())).toEqual({
        realization: 'recorded',
        state: 'recorded',
        release: 'stk-0123456789ab-web',
        namespace: 'org-stack',
        manifest: '',
        message: HELM_MISSING,
      });
      await withoutHelm.close();
    });
  });
});
