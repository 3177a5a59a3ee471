/**
 * Helm, shared by both runtimes: which chart a release may use, what the release is called, and
 * running the helm binary with a release's values. Values hold resolved secrets, so they travel
 * to helm only in a file readable by this user alone, removed once helm is done, and never on
 * its command line or in a message.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkloadsConfig } from '../config/workloads.js';
import { WorkloadError } from './runtime.js';

/** What the runtimes read of the configuration to find helm and the charts it may install. */
export type HelmConfig = Pick<WorkloadsConfig, 'helmBinary' | 'chartsDir' | 'chartRepositories'>;

/** What a release is answered with when this machine has no helm to render it with. */
export const HELM_MISSING = 'helm is not installed: set CLOUDPLANE_HELM_BINARY';

/** Helm's own limit on release names (a label value with room for its suffixes). */
const RELEASE_NAME_MAX = 53;
/** What is kept of helm's standard error in a `HelmFailed` message. */
const STDERR_LIMIT = 2048;

/**
 * A DNS label of at most `maxLength` characters derived from a platform id: lowercase, `[a-z0-9-]`,
 * starting with a letter and ending with a letter or digit. An id that needs more than `_` → `-`
 * to fit (shortened, other characters replaced) gets a hash of the whole id as its suffix, so two
 * ids never share a name.
 */
export function kubernetesName(id: string, maxLength: number): string {
  const plain = id.replace(/_/g, '-');
  if (plain.length <= maxLength && /^[a-z]([a-z0-9-]*[a-z0-9])?$/.test(plain)) return plain;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  const cleaned = plain
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '');
  const stem = cleaned.slice(0, maxLength - hash.length - 1).replace(/-+$/, '');
  return stem ? `${stem}-${hash}` : `r${hash}`;
}

/** The release a `ReleaseWorkload` id becomes. */
export const releaseName = (id: string): string => kubernetesName(id, RELEASE_NAME_MAX);

const REMOTE_CHART = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * What to hand helm for `chart`: a remote reference starting with one of the configured
 * repositories, or the real path of a chart inside the charts directory (`webapp` →
 * `<chartsDir>/webapp`). Throws `ChartNotAllowed` for another remote chart, `ChartNotFound` for a
 * local one that is missing or lies outside the directory (`..`, an absolute path, a symlink out).
 */
export async function resolveChart(chart: string, config: HelmConfig): Promise<string> {
  if (REMOTE_CHART.test(chart)) {
    if (config.chartRepositories.some((prefix) => chart.startsWith(prefix))) return chart;
    const allowed = config.chartRepositories.length
      ? `one of ${config.chartRepositories.join(', ')}`
      : 'none is configured (CLOUDPLANE_STACK_CHART_REPOSITORIES)';
    throw new WorkloadError('ChartNotAllowed', `chart ${chart} is not in an allowed repository: ${allowed}`);
  }
  if (!config.chartsDir) {
    throw new WorkloadError(
      'ChartNotFound',
      `chart ${chart} is not a remote chart and no charts directory is configured (CLOUDPLANE_STACK_CHARTS_DIR)`,
    );
  }
  const notFound = () => new WorkloadError('ChartNotFound', `no chart ${chart} in the charts directory`);
  let root: string;
  let real: string;
  try {
    root = await fs.realpath(config.chartsDir);
    real = await fs.realpath(path.resolve(root, chart));
  } catch {
    throw notFound();
  }
  const inside = path.relative(root, real);
  if (inside === '' || inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
    throw notFound();
  }
  return real;
}

export interface HelmRun {
  binary: string;
  /** Flags first; positional arguments after a `--`, so that no name or chart is read as a flag. */
  args: readonly string[];
  timeoutMs: number;
}

/** Runs helm to its end and returns what it printed; a failure is `WorkloadError('HelmFailed', <its stderr>)`. */
export function runHelm(run: HelmRun): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.binary, run.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      // A process helm started may hold its output open; helm's answer is not waited for anymore.
      child.stdout.destroy();
      child.stderr.destroy();
    }, run.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT * 2) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const message =
        error.code === 'ENOENT'
          ? `${HELM_MISSING} (${run.binary} not found)`
          : `helm could not start: ${error.message}`;
      reject(new WorkloadError('HelmFailed', message, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      const said = stderr.trim().slice(0, STDERR_LIMIT);
      const why = timedOut
        ? `helm did not finish within ${run.timeoutMs / 1000}s`
        : said || `helm failed (${signal ?? `exit ${code}`})`;
      reject(new WorkloadError('HelmFailed', why));
    });
  });
}

/**
 * Calls `use` with the path of a file holding `values` (JSON, which helm reads as YAML), in a
 * fresh folder under `parent` readable by this user alone; both are removed afterwards.
 */
export async function withValuesFile<T>(
  parent: string,
  values: Record<string, unknown>,
  use: (file: string) => Promise<T>,
): Promise<T> {
  await fs.mkdir(parent, { recursive: true, mode: 0o700 });
  const dir = await fs.mkdtemp(path.join(parent, 'values-'));
  try {
    const file = path.join(dir, 'values.json');
    await fs.writeFile(file, JSON.stringify(values), { mode: 0o600 });
    return await use(file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** `--version=<v>` when a version is asked for: one argument, so a value cannot pass for a flag. */
export const versionFlag = (version: string | undefined): string[] =>
  version === undefined ? [] : [`--version=${version}`];
