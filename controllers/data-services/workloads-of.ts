/** The runtime's view of the family's objects. */
import type { Database, NfsShare } from '../../crds/data-services.js';
import type { DatabaseWorkload, ShareWorkload } from '../../workloads/runtime.js';
import { DEFAULT_MEMORY_MB, DEFAULT_STORAGE_GB, sizedByMemory } from './engine.js';
import { workloadIdOf } from '../../crds/ids.js';

export function databaseWorkload(database: Database): DatabaseWorkload {
  const spec = database.spec!;
  const namespace = database.metadata.namespace ?? '';
  const workload: DatabaseWorkload = {
    id: workloadIdOf('db', namespace, database.metadata.name),
    organization: namespace,
    engine: spec.engine,
  };
  if (spec.version !== undefined) workload.version = spec.version;
  if (sizedByMemory(spec.engine)) workload.memoryMb = spec.memoryMb ?? DEFAULT_MEMORY_MB;
  else workload.storageGb = spec.storageGb ?? DEFAULT_STORAGE_GB;
  return workload;
}

export function shareWorkload(share: NfsShare): ShareWorkload {
  const namespace = share.metadata.namespace ?? '';
  return {
    id: workloadIdOf('nfs', namespace, share.metadata.name),
    organization: namespace,
    sizeGb: share.spec!.sizeGb,
  };
}
