import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { localShares } from '../../workloads/local/shares.js';
import { runCommand } from '../../workloads/local/commands.js';
import type { ShareRuntime, ShareWorkload } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { describeShareRuntimeContract } from './workloads.contract.js';

/** The settings `serve` would read, with a data dir of the test's own and a host name of its own. */
const configFor = (dataDir: string): WorkloadsConfig =>
  workloadsConfig({ CLOUDPLANE_WORKLOAD_HOST: 'platform.example' }, { dataDir });

async function temporaryDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-shares-'));
}

describeShareRuntimeContract('local', async () => {
  const dir = await temporaryDir();
  const runtime = createLocalRuntime({ config: configFor(dir), logger: capturedLogger().logger });
  return {
    runtime,
    organization: 'org-contract',
    fill: (mountPath, file, bytes) => fs.writeFile(path.join(mountPath, file), randomBytes(bytes)),
    files: async (mountPath) => (await fs.readdir(mountPath)).sort(),
    async cleanup() {
      await runtime.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
});

describe('local shares specifics', () => {
  let dir: string;
  let shares: ShareRuntime;
  const share = (organization = 'org-local'): ShareWorkload => ({
    id: `nfs_${randomBytes(6).toString('hex')}`,
    organization,
    sizeGb: 1,
  });

  beforeAll(async () => {
    dir = await temporaryDir();
    shares = localShares({ config: configFor(dir), logger: capturedLogger().logger });
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('says plainly it is a local directory, and where', async () => {
    const workload = share();
    const observation = await shares.ensure(workload);
    expect(observation).toEqual({
      realization: 'real',
      state: 'ready',
      message: 'a local directory on the platform host, not served over NFS',
      mount: {
        server: 'platform.example',
        path: path.join(dir, 'workloads', 'shares', 'org-local', workload.id),
      },
      usedBytes: 0,
    });
  });

  it('measures files in sub-directories and never follows a link', async () => {
    const workload = share();
    const mount = (await shares.ensure(workload)).mount!;
    await fs.mkdir(path.join(mount.path, 'nested', 'deeper'), { recursive: true });
    await fs.writeFile(path.join(mount.path, 'nested', 'deeper', 'a.bin'), randomBytes(1000));
    await fs.writeFile(path.join(mount.path, 'b.bin'), randomBytes(500));
    const outside = path.join(dir, 'outside.bin');
    await fs.writeFile(outside, randomBytes(100_000));
    await fs.symlink(outside, path.join(mount.path, 'link'));
    const used = (await shares.observe(workload)).usedBytes;
    expect(used).toBe(1500 + outside.length);
  });

  it('says a removed share is gone', async () => {
    const workload = share();
    await shares.ensure(workload);
    await shares.remove(workload);
    expect(await shares.observe(workload)).toEqual({
      realization: 'real',
      state: 'degraded',
      message: 'the share directory is gone',
      usedBytes: 0,
    });
  });

  it('replaces what the target held when restoring', async () => {
    const source = share();
    const sourceMount = (await shares.ensure(source)).mount!;
    await fs.writeFile(path.join(sourceMount.path, 'kept.txt'), 'from the backup');
    const artifact = await shares.backup(source, `bkp_${randomBytes(6).toString('hex')}`);
    const target = share();
    const targetMount = (await shares.ensure(target)).mount!;
    await fs.mkdir(path.join(targetMount.path, 'old'));
    await fs.writeFile(path.join(targetMount.path, 'old', 'stale.txt'), 'before the restore');
    await shares.restore(artifact, target);
    expect(await fs.readdir(targetMount.path)).toEqual(['kept.txt']);
    expect(await fs.readFile(path.join(targetMount.path, 'kept.txt'), 'utf8')).toBe('from the backup');
  });

  it('refuses an archive with a member that would land outside the share', async () => {
    const staging = path.join(dir, 'staging');
    await fs.mkdir(path.join(staging, 'inner'), { recursive: true });
    await fs.writeFile(path.join(staging, 'escape.txt'), 'out');
    const archive = path.join(dir, 'hostile.tar.gz');
    // -P keeps the `..` that tar would otherwise strip from the member's name.
    await runCommand('tar', ['-czPf', archive, '-C', path.join(staging, 'inner'), '../escape.txt'], 'Test');
    const target = share();
    const mount = (await shares.ensure(target)).mount!;
    await fs.writeFile(path.join(mount.path, 'mine.txt'), 'untouched');
    await expect(shares.restore({ location: archive, sizeBytes: 1 }, target)).rejects.toMatchObject({
      reason: 'InvalidBackup',
    });
    expect(await fs.readdir(mount.path)).toEqual(['mine.txt']);
    expect(existsSync(path.join(path.dirname(mount.path), 'escape.txt'))).toBe(false);
  });

  it.each([
    ['an organization', { organization: '../other' }],
    ['a share id', { id: 'nfs_x/../../etc' }],
  ])('refuses %s that is not a path segment', async (_what, bad) => {
    await expect(shares.ensure({ ...share(), ...bad })).rejects.toMatchObject({ reason: 'InvalidName' });
  });
});
