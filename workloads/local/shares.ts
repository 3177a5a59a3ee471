/**
 * Shares on this machine: a directory per share on the platform host. Nothing serves it over
 * NFS; it is real (its files are kept, measured, backed up) and says plainly what it is.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  WorkloadError,
  type BackupArtifact,
  type ShareObservation,
  type ShareRuntime,
  type ShareWorkload,
} from '../runtime.js';
import { artifactOf, backupFile } from './backup-files.js';
import { runCommand } from './commands.js';
import type { LocalEngineOptions } from './engine.js';

const WHAT_IT_IS = 'a local directory on the platform host, not served over NFS';
const TAR = 'tar';

function pathSegment(value: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(value)} is not a valid ${what}`);
  }
  return value;
}

/** Bytes in the tree's files; links are counted as themselves, never followed. */
async function usedBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await usedBytes(file);
    else
      total += await fs.lstat(file).then(
        (stat) => stat.size,
        () => 0,
      );
  }
  return total;
}

/** Every member of the archive lands inside the directory it is extracted into. */
async function checkMembers(archive: string): Promise<void> {
  const listing = await runCommand(TAR, ['-tzf', archive], 'InvalidBackup');
  for (const member of listing.split('\n').filter(Boolean)) {
    if (path.isAbsolute(member) || member.split('/').includes('..')) {
      throw new WorkloadError(
        'InvalidBackup',
        'the backup holds a file outside the share; it is not restored',
      );
    }
  }
}

export function localShares(options: LocalEngineOptions): ShareRuntime {
  const { config, logger } = options;
  const dirOf = (share: ShareWorkload): string =>
    path.join(
      config.dir,
      'shares',
      pathSegment(share.organization, 'organization name'),
      pathSegment(share.id, 'share id'),
    );

  const observe = async (share: ShareWorkload): Promise<ShareObservation> => {
    const dir = dirOf(share);
    const present = await fs.stat(dir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    if (!present) {
      return { realization: 'real', state: 'degraded', message: 'the share directory is gone', usedBytes: 0 };
    }
    return {
      realization: 'real',
      state: 'ready',
      message: WHAT_IT_IS,
      mount: { server: config.advertisedHost, path: dir },
      usedBytes: await usedBytes(dir),
    };
  };

  return {
    async ensure(share) {
      const dir = dirOf(share);
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      return observe(share);
    },

    observe,

    async remove(share) {
      await fs.rm(dirOf(share), { recursive: true, force: true });
    },

    async backup(share, backupId): Promise<BackupArtifact> {
      const dir = dirOf(share);
      if (!(await observe(share)).mount)
        throw new WorkloadError('NotFound', `share ${share.id} does not exist here`);
      const file = await backupFile(config, backupId, 'tar.gz');
      await runCommand(TAR, ['-czf', file, '-C', dir, '.'], 'BackupFailed');
      logger.info({ share: share.id, backup: backupId }, 'share archived');
      return artifactOf(file);
    },

    async restore(artifact, target) {
      const dir = dirOf(target);
      await fs.access(artifact.location).catch((error: unknown) => {
        throw new WorkloadError('BackupMissing', 'the backup file is gone', { cause: error });
      });
      await checkMembers(artifact.location);
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      for (const entry of await fs.readdir(dir))
        await fs.rm(path.join(dir, entry), { recursive: true, force: true });
      await runCommand(TAR, ['-xzf', artifact.location, '-C', dir, '--no-same-owner'], 'RestoreFailed');
      logger.info({ share: target.id }, 'share restored from an archive');
    },
  };
}
