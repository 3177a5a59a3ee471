/**
 * The kubernetes workload runtime (cluster mode): managed data services and stacks' jobs as
 * objects in each organization's namespace, run by the cluster and its operators (CloudNativePG
 * for PostgreSQL), and stacks' helm services as helm releases there.
 * Its state is the cluster's: any operator replica answers the same.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import type { HelmConfig } from '../helm.js';
import { WorkloadError, type BackupArtifact, type WorkloadRuntime } from '../runtime.js';
import { placeOf } from './artifacts.js';
import { kubernetesConnect } from './connect.js';
import { kubernetesDatabases } from './databases.js';
import { jobRunner, type JobRunner } from './jobs.js';
import { runsEngine } from './engines/index.js';
import { removeObject } from './objects.js';
import { kubernetesReleases } from './releases.js';
import { kubeName } from './names.js';
import { BACKUPS_MOUNT } from './render.js';
import { CNPG_BACKUP } from './resource-types.js';
import { DEFAULT_SETTINGS, type BackupStorage, type KubernetesSettings } from './settings.js';
import { kubernetesShares } from './shares.js';
import { kubernetesStreaming } from './streaming.js';
import { kubernetesStackJobs, podLogReader } from './stack-jobs.js';

export { KUBERNETES_WORKLOAD_KINDS } from './resource-types.js';
export type { BackupStorage, KubernetesSettings } from './settings.js';

export interface KubernetesRuntimeOptions {
  /** The operator's store: it reaches the kube-apiserver for kinds of any group it was given. */
  store: ObjectStore;
  logger: Logger;
  /** The StorageClass of shares; it must offer ReadWriteMany. Absent: the cluster's default. */
  storageClass?: string;
  /**
   * Images that replace the defaults, by repository and tag: an engine's under the engine's name,
   * and `tools` for the runtime's own Jobs.
   */
  images?: Readonly<Record<string, string>>;
  postgresInstances?: number;
  backupStorage?: Partial<BackupStorage>;
  readyWaitMs?: number;
  jobTimeoutMs?: number;
  pollIntervalMs?: number;
  /** The helm binary and the charts stacks' services may install; absent: releases are refused. */
  helm?: HelmConfig;
  /** The kubeconfig the store was built with: stack jobs' logs are read with it. Absent: logs are empty. */
  kubeConfig?: KubeConfig;
  /** The KafkaConnect image, with the connector plugins the platform offers; absent: Strimzi's own. */
  connectImage?: string;
}

/** The images configured: the tools image, and the engines' each under a name this runtime runs. */
function imageSettings(
  configured: Readonly<Record<string, string>>,
): Pick<KubernetesSettings, 'images' | 'toolsImage'> {
  const { tools, ...images } = configured;
  for (const name of Object.keys(images)) {
    if (!runsEngine(name))
      throw new WorkloadError(
        'UnsupportedEngine',
        `an image is configured for ${name}, an engine this cluster runtime does not run`,
      );
  }
  return { images, toolsImage: tools ?? DEFAULT_SETTINGS.toolsImage };
}

/** The runtime's settings: the options given, the defaults for the rest. */
function settingsOf(options: KubernetesRuntimeOptions): KubernetesSettings {
  return {
    ...(options.storageClass ? { storageClass: options.storageClass } : {}),
    ...imageSettings(options.images ?? {}),
    postgresInstances: options.postgresInstances ?? DEFAULT_SETTINGS.postgresInstances,
    backupStorage: { ...DEFAULT_SETTINGS.backupStorage, ...options.backupStorage },
    readyWaitMs: options.readyWaitMs ?? DEFAULT_SETTINGS.readyWaitMs,
    jobTimeoutMs: options.jobTimeoutMs ?? DEFAULT_SETTINGS.jobTimeoutMs,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_SETTINGS.pollIntervalMs,
  };
}

/** A CloudNativePG backup is its Backup object; a dump is a file on the backup claim, removed by a Job. */
function backupRemover(
  store: ObjectStore,
  logger: Logger,
  settings: KubernetesSettings,
  jobs: JobRunner,
): WorkloadRuntime['removeBackup'] {
  return async (artifact: BackupArtifact) => {
    const place = placeOf(artifact.location);
    if (place.kind === 'cnpg') {
      await removeObject(store, CNPG_BACKUP, place.namespace, place.name);
      return;
    }
    await jobs.run(
      {
        name: `${kubeName(place.file.split('--')[0]!)}-remove`,
        namespace: place.namespace,
        image: settings.toolsImage,
        script: `rm -f "${BACKUPS_MOUNT}/${place.file}"`,
        env: [],
        claims: { [place.claim]: BACKUPS_MOUNT },
        labels: {},
      },
      'BackupRemovalFailed',
    );
    logger.info({ location: artifact.location }, 'backup file removed');
  };
}

export function createKubernetesRuntime(options: KubernetesRuntimeOptions): WorkloadRuntime {
  const { store, logger } = options;
  const settings = settingsOf(options);
  const jobs = jobRunner(store, {
    timeoutMs: settings.jobTimeoutMs,
    pollIntervalMs: settings.pollIntervalMs,
  });
  return {
    kind: 'kubernetes',
    databases: kubernetesDatabases(store, logger, settings, jobs),
    shares: kubernetesShares(store, logger, settings, jobs),
    jobs: kubernetesStackJobs(store, options.kubeConfig && podLogReader(options.kubeConfig)),
    releases: kubernetesReleases(
      options.helm ?? { helmBinary: undefined, chartsDir: undefined, chartRepositories: [] },
      logger,
    ),
    streaming: kubernetesStreaming(store, logger, settings),
    connect: kubernetesConnect(store, logger, options.connectImage ? { image: options.connectImage } : {}),
    removeBackup: backupRemover(store, logger, settings, jobs),
    // Nothing runs in this process: every workload is the cluster's.
    close: async () => undefined,
  };
}
