/**
 * Stacks' helm services in a cluster: `helm upgrade --install`, waiting for the release to be
 * ready and rolling back when it is not. Helm reaches the cluster with the process's own
 * credentials (in a pod, its service account).
 */
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../observability/logger.js';
import {
  HELM_MISSING,
  releaseName,
  resolveChart,
  runHelm,
  versionFlag,
  withValuesFile,
  type HelmConfig,
} from '../helm.js';
import { WorkloadError, type ReleaseRuntime, type ReleaseWorkload } from '../runtime.js';

/** Helm's own calls around the install (reading the release back) are given this long. */
const QUERY_TIMEOUT_MS = 60_000;
/** Beyond helm's `--timeout`, for what it does before and after waiting. */
const PROCESS_MARGIN_MS = 60_000;

/** Helm's `--timeout`, in whole seconds. */
const helmTimeout = (ms: number): string => `--timeout=${Math.max(1, Math.ceil(ms / 1000))}s`;

/** The release's revision, from `helm get metadata -o json`. */
export function revisionOf(metadataJson: string): number | undefined {
  try {
    const revision = (JSON.parse(metadataJson) as { revision?: unknown }).revision;
    return typeof revision === 'number' ? revision : undefined;
  } catch {
    return undefined;
  }
}

/** The `helm upgrade --install` arguments of a release whose values are in `valuesFile`. */
export function upgradeArgs(release: ReleaseWorkload, chart: string, valuesFile: string): string[] {
  return [
    'upgrade',
    '--install',
    `--namespace=${release.organization}`,
    '--wait',
    '--rollback-on-failure',
    helmTimeout(release.timeoutMs),
    `--values=${valuesFile}`,
    ...versionFlag(release.version),
    '--',
    releaseName(release.id),
    chart,
  ];
}

export function kubernetesReleases(config: HelmConfig, logger: Logger): ReleaseRuntime {
  const log = logger.child({ component: 'kubernetes-releases' });
  const helm = (): string => {
    // The image ships helm: without it nothing can be installed, and saying so is all there is to do.
    if (!config.helmBinary) throw new WorkloadError('HelmFailed', HELM_MISSING);
    return config.helmBinary;
  };
  const valuesDir = path.join(os.tmpdir(), 'cloudplane-releases');

  return {
    async install(release) {
      const binary = helm();
      const chart = await resolveChart(release.chart, config);
      const name = releaseName(release.id);
      const namespace = release.organization;
      await withValuesFile(valuesDir, release.values, (file) =>
        runHelm({
          binary,
          args: upgradeArgs(release, chart, file),
          timeoutMs: release.timeoutMs + PROCESS_MARGIN_MS,
        }),
      );
      const query = (what: string[]) =>
        runHelm({
          binary,
          args: ['get', ...what, `--namespace=${namespace}`, '--', name],
          timeoutMs: QUERY_TIMEOUT_MS,
        });
      const manifest = await query(['manifest']);
      const revision = revisionOf(await query(['metadata', '--output=json']));
      log.info({ release: name, namespace, chart: release.chart, revision }, 'release installed');
      return {
        realization: 'real',
        state: 'ready',
        release: name,
        namespace,
        manifest,
        ...(revision === undefined ? {} : { revision }),
      };
    },

    async uninstall(release) {
      const name = releaseName(release.id);
      await runHelm({
        binary: helm(),
        args: [
          'uninstall',
          `--namespace=${release.organization}`,
          '--wait',
          '--ignore-not-found',
          helmTimeout(release.timeoutMs),
          '--',
          name,
        ],
        timeoutMs: release.timeoutMs + PROCESS_MARGIN_MS,
      });
      log.info({ release: name, namespace: release.organization }, 'release uninstalled');
    },
  };
}
