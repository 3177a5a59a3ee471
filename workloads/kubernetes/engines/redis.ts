/**
 * Redis as a StatefulSet with append-only files; the tenant logs in as `default` to database 0.
 * Its snapshot cannot be loaded into a running server, so a dump is never loaded back.
 */
import { DATA_VOLUME, kubeName } from '../names.js';
import { WorkloadError } from '../../runtime.js';
import { probe, tenantEnv, type KubernetesEngine } from './engine.js';

export const redis: KubernetesEngine = {
  name: 'redis',
  runsAs: 'StatefulSet',
  image: 'redis:7',
  serviceName: (workload) => kubeName(workload.id),
  username: () => 'default',
  database: () => '0',
  connectionString: (login, database) => `redis://${login}/${database}`,
  secretData: () => ({}),
  container: (workload) => ({
    command: ['sh', '-c'],
    args: [
      `exec redis-server --dir /data --appendonly yes --maxmemory ${workload.memoryMb ?? 64}mb --requirepass "$TENANT_PASSWORD"`,
    ],
    env: tenantEnv(workload, '0'),
    readinessProbe: probe('REDISCLI_AUTH="$TENANT_PASSWORD" redis-cli ping | grep -q PONG'),
    volumeMounts: [{ name: DATA_VOLUME, mountPath: '/data' }],
  }),
  // The append-only files: twice its memory, at least 1 GiB.
  storageGb: (workload) => Math.max(1, Math.ceil(((workload.memoryMb ?? 64) * 2) / 1024)),
  dumpExtension: 'rdb',
  dumpCommand: ({ host, port, file }) =>
    `REDISCLI_AUTH="$TENANT_PASSWORD" redis-cli -h ${host} -p ${port} --rdb "${file}"`,
  loadCommand: () => {
    throw new WorkloadError(
      'RestoreUnsupported',
      'a Redis snapshot cannot be loaded into a running Redis server in a cluster; this version does not restore Redis backups',
    );
  },
};
