/**
 * Stacks' helm services in the embedded mode: rendered with `helm template` and kept as a
 * record. Nothing is installed, since there is no cluster to install into.
 */
import path from 'node:path';
import type { ReleaseRuntime, ReleaseWorkload } from '../runtime.js';
import { HELM_MISSING, releaseName, resolveChart, runHelm, versionFlag, withValuesFile } from '../helm.js';
import type { LocalEngineOptions } from './engine.js';

const RENDERED = 'rendered with helm template; services are recorded in the embedded mode, not run';

export function localReleases(options: LocalEngineOptions): ReleaseRuntime {
  const { config } = options;
  const logger = options.logger.child({ component: 'local-releases' });
  const valuesDir = path.join(config.dir, 'releases');

  return {
    async install(release: ReleaseWorkload) {
      const chart = await resolveChart(release.chart, config);
      const recorded = {
        realization: 'recorded' as const,
        state: 'recorded' as const,
        release: releaseName(release.id),
        namespace: release.organization,
      };
      const binary = config.helmBinary;
      if (!binary) return { ...recorded, manifest: '', message: HELM_MISSING };
      const manifest = await withValuesFile(valuesDir, release.values, (file) =>
        runHelm({
          binary,
          args: [
            'template',
            `--namespace=${release.organization}`,
            `--values=${file}`,
            ...versionFlag(release.version),
            '--',
            recorded.release,
            chart,
          ],
          timeoutMs: release.timeoutMs,
        }),
      );
      logger.info({ release: recorded.release, chart: release.chart }, 'release rendered');
      return { ...recorded, manifest, message: RENDERED };
    },
    // Rendering left nothing behind to uninstall.
    uninstall: async () => undefined,
  };
}
