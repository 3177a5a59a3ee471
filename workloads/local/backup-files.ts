import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkloadsConfig } from '../../config/workloads.js';
import type { BackupArtifact } from '../runtime.js';

/** The file a backup is written to: one per backup, under the data dir's `backups`. */
export async function backupFile(
  config: WorkloadsConfig,
  backupId: string,
  extension: string,
): Promise<string> {
  if (!/^[A-Za-z0-9_-]+$/.test(backupId))
    throw new Error(`backup id ${JSON.stringify(backupId)} is not a file name`);
  const dir = path.join(config.dir, 'backups');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `${backupId}.${extension}`);
}

/** The artifact of a finished backup file, with its real size. */
export async function artifactOf(file: string): Promise<BackupArtifact> {
  const { size } = await fs.stat(file);
  return { location: file, sizeBytes: size };
}
