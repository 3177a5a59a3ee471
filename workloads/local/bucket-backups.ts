/**
 * Backups kept in a bucket instead of on the platform host's disk. Each engine still writes its
 * dump to a local file; this layer moves the file to the bucket as soon as it is written and
 * brings it back into a temporary file only for the length of a restore. Locations taken before
 * a bucket was configured are local files and keep working as such.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkloadsConfig } from '../../config/workloads.js';
import type { Logger } from '../../observability/logger.js';
import { WorkloadError, type BackupArtifact, type WorkloadRuntime } from '../runtime.js';
import { locationOf, placeOf, type BackupBucket } from './backup-bucket.js';

export interface BucketBackupsOptions {
  config: WorkloadsConfig;
  logger: Logger;
  bucket: BackupBucket;
}

/** One folder per organization in the bucket, so its backups can be listed and granted apart. */
function segmentOf(organization: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(organization)) {
    throw new WorkloadError(
      'InvalidName',
      `${JSON.stringify(organization)} is not a valid organization name`,
    );
  }
  return organization;
}

/** Wraps a local runtime so that what its engines back up lands in the bucket. */
export function withBucketBackups(runtime: WorkloadRuntime, options: BucketBackupsOptions): WorkloadRuntime {
  const { config, bucket } = options;
  const logger = options.logger.child({ backupBucket: bucket.bucket });

  /** Moves a freshly written backup file to the bucket; the file is gone afterwards either way. */
  const upload = async (
    organization: string,
    write: () => Promise<BackupArtifact>,
  ): Promise<BackupArtifact> => {
    const folder = `${bucket.prefix}${segmentOf(organization)}/`;
    const local = await write();
    try {
      const key = `${folder}${path.basename(local.location)}`;
      await bucket.put(key, local.location);
      logger.info({ key, sizeBytes: local.sizeBytes }, 'backup uploaded');
      return { location: locationOf({ bucket: bucket.bucket, key }), sizeBytes: local.sizeBytes };
    } finally {
      await fs.rm(local.location, { force: true });
    }
  };

  /** Runs `restore` on a local copy of the artifact, removed again whatever the outcome. */
  const fromLocalCopy = async (
    artifact: BackupArtifact,
    restore: (local: BackupArtifact) => Promise<void>,
  ): Promise<void> => {
    const place = placeOf(artifact.location);
    if (!place) return restore(artifact);
    if (place.bucket !== bucket.bucket) {
      throw new WorkloadError(
        'BackupMissing',
        `the backup is kept in bucket ${place.bucket}, not in the configured ${bucket.bucket}`,
      );
    }
    const dir = path.join(config.dir, 'backups');
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const copy = path.join(dir, `restore-${randomBytes(8).toString('hex')}`);
    try {
      await bucket.get(place.key, copy);
      logger.info({ key: place.key }, 'backup downloaded for a restore');
      await restore({ location: copy, sizeBytes: artifact.sizeBytes });
    } finally {
      await fs.rm(copy, { force: true });
    }
  };

  const { databases, shares } = runtime;
  return {
    ...runtime,
    databases: {
      ...databases,
      backup: (workload, password, backupId) =>
        upload(workload.organization, () => databases.backup(workload, password, backupId)),
      restore: (artifact, target, password) =>
        fromLocalCopy(artifact, (local) => databases.restore(local, target, password)),
    },
    shares: {
      ...shares,
      backup: (workload, backupId) => upload(workload.organization, () => shares.backup(workload, backupId)),
      restore: (artifact, target) => fromLocalCopy(artifact, (local) => shares.restore(local, target)),
    },
    async removeBackup(artifact) {
      const place = placeOf(artifact.location);
      if (!place) return runtime.removeBackup(artifact);
      if (place.bucket !== bucket.bucket) {
        throw new WorkloadError(
          'BackupStorageFailed',
          `the backup is kept in bucket ${place.bucket}, not in the configured ${bucket.bucket}`,
        );
      }
      await bucket.delete(place.key);
      logger.info({ key: place.key }, 'backup deleted');
    },
  };
}
