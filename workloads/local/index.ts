/**
 * The local workload runtime: managed data services, stacks' jobs and helm services on this
 * machine (the embedded default).
 */
import fs from 'node:fs/promises';
import type { BackupArtifact, DatabaseRuntime, WorkloadRuntime } from '../runtime.js';
import { BackupBucket } from './backup-bucket.js';
import { withBucketBackups } from './bucket-backups.js';
import type { LocalEngineOptions } from './engine.js';
import { localEngines } from './engines/index.js';
import { localJobs } from './jobs.js';
import { localReleases } from './releases.js';
import { localShares } from './shares.js';
import { createLocalStreaming } from './streaming.js';

type LocalEngines = ReturnType<typeof localEngines>;

/** Each database goes to its engine's local server. */
function localDatabases(engines: LocalEngines): DatabaseRuntime {
  const of = (workload: { engine: string }) => engines.engineFor(workload.engine);
  return {
    ensure: (workload, password) => of(workload).ensure(workload, password),
    observe: (workload, password) => of(workload).observe(workload, password),
    remove: (workload) => of(workload).remove(workload),
    backup: (workload, password, backupId) => of(workload).backup(workload, password, backupId),
    restore: (artifact, target, password) => of(target).restore(artifact, target, password),
  };
}

function localStreaming(options: LocalEngineOptions) {
  const { config, logger } = options;
  return createLocalStreaming({
    dir: config.dir,
    advertisedHost: config.advertisedHost,
    ports: config.streamingPorts,
    logger,
  });
}

/** A backup kept on this machine is a file or a folder. */
async function removeLocalBackup(artifact: BackupArtifact): Promise<void> {
  await fs.rm(artifact.location, { force: true, recursive: true });
}

export function createLocalRuntime(options: LocalEngineOptions): WorkloadRuntime {
  const engines = localEngines(options);
  const jobs = localJobs(options);
  const streaming = localStreaming(options);
  const runtime: WorkloadRuntime = {
    kind: 'local',
    databases: localDatabases(engines),
    shares: localShares(options),
    jobs,
    releases: localReleases(options),
    streaming,
    removeBackup: removeLocalBackup,
    async close() {
      await Promise.allSettled([engines.close(), jobs.close(), streaming.close()]);
    },
  };
  const { backupBucket } = options.config;
  if (!backupBucket) return runtime;
  return withBucketBackups(runtime, { ...options, bucket: new BackupBucket(backupBucket) });
}
