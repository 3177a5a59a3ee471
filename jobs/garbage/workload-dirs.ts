/**
 * Directories the local workload runtime left under its directory for a database or share that no
 * longer exists: `shares/<organization>/<nfs id>` and `redis/<db id>`. The runtime removes them
 * when the controller asks; these are what an interrupted deletion (or a removed object while the
 * process was down) left behind, holding the organization's data.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GcScope, Leftover, ResourceCollector } from './types.js';
import { ORPHAN_GRACE_MS } from './types.js';

interface WorkloadDir {
  dir: string;
  id: string;
  /** The organization's namespace a share directory sits under; redis directories name none. */
  namespace?: string;
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

async function workloadDirs(root: string): Promise<WorkloadDir[]> {
  const dirs: WorkloadDir[] = [];
  const shares = path.join(root, 'shares');
  for (const organization of await subdirectories(shares)) {
    for (const id of await subdirectories(path.join(shares, organization))) {
      dirs.push({ dir: path.join(shares, organization, id), id, namespace: organization });
    }
  }
  const redis = path.join(root, 'redis');
  for (const id of await subdirectories(redis)) {
    dirs.push({ dir: path.join(redis, id), id });
  }
  return dirs;
}

async function leftoversOf(scope: GcScope): Promise<Leftover[]> {
  const view = scope.view!;
  const knownIds = new Set([...view.dataServices].map((key) => key.slice(key.indexOf('/') + 1)));
  const exists = (workload: WorkloadDir) =>
    workload.namespace === undefined
      ? knownIds.has(workload.id)
      : view.dataServices.has(`${workload.namespace}/${workload.id}`);
  const leftovers: Leftover[] = [];
  for (const workload of await workloadDirs(scope.workloadsDir!)) {
    if (exists(workload)) continue;
    const { mtime } = await fs.stat(workload.dir);
    // Made after the view was read, perhaps: its object may be new.
    if (scope.now.getTime() - mtime.getTime() < ORPHAN_GRACE_MS) continue;
    leftovers.push({
      resource: workload.dir,
      since: mtime.toISOString(),
      reason: 'workload directory of a database or share that no longer exists',
      protected: view.protectedIds.has(workload.id),
    });
  }
  return leftovers;
}

export const ORPHANED_WORKLOAD_DIRS: ResourceCollector = {
  shape: 'resources',
  name: 'workload_dirs',
  needs: ['control plane', 'workloads dir'],
  list: leftoversOf,
  async remove(_scope, leftover) {
    await fs.rm(leftover.resource, { recursive: true, force: true });
  },
};
