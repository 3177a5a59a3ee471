/**
 * The local workload runtime: managed data services, stacks' jobs and helm services on this
 * machine (the embedded default).
 */
import fs from 'node:fs/promises';
import type { DatabaseEngine, DatabaseRuntime, WorkloadRuntime, BackupArtifact } from '../runtime.js';
import { BackupBucket } from './backup-bucket.js';
import { withBucketBackups } from './bucket-backups.js';
import type { LocalEngine, LocalEngineOptions } from './engine.js';
import { localJobs } from './jobs.js';
import { mongodbEngine } from './mongodb.js';
import { mysqlEngine } from './mysql.js';
import { postgresqlEngine } from './postgresql.js';
import { redisEngine } from './redis.js';
import { localReleases } from './releases.js';
import { localShares } from './shares.js';
import { createLocalStreaming } from './streaming.js';

export function createLocalRuntime(options: LocalEngineOptions): WorkloadRuntime {
  const engines: Record<DatabaseEngine, LocalEngine> = {
    postgresql: postgresqlEngine(options),
    mysql: mysqlEngine(options),
    redis: redisEngine(options),
    mongodb: mongodbEngine(options),
  };
  const databases: DatabaseRuntime = {
    ensure: (workload, password) => engines[workload.engine].ensure(workload, password),
    observe: (workload, password) => engines[workload.engine].observe(workload, password),
    remove: (workload) => engines[workload.engine].remove(workload),
    backup: (workload, password, backupId) => engines[workload.engine].backup(workload, password, backupId),
    restore: (artifact, target, password) => engines[target.engine].restore(artifact, target, password),
  };
  const jobs = localJobs(options);
  const { config } = options;
  const streaming = createLocalStreaming({
    dir: config.dir,
    advertisedHost: config.advertisedHost,
    ports: config.streamingPorts,
    logger: options.logger,
  });
  const runtime: WorkloadRuntime = {
    kind: 'local',
    databases,
    shares: localShares(options),
    jobs,
    releases: localReleases(options),
    streaming,
    async removeBackup(artifact: BackupArtifact) {
      await fs.rm(artifact.location, { force: true, recursive: true });
    },
    async close() {
      await Promise.allSettled([
        ...Object.values(engines).map((engine) => engine.close()),
        jobs.close(),
        streaming.close(),
      ]);
    },
  };
  const { backupBucket } = config;
  if (!backupBucket) return runtime;
  return withBucketBackups(runtime, { ...options, bucket: new BackupBucket(backupBucket) });
}
