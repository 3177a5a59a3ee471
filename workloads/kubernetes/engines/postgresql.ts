/** PostgreSQL runs as a CloudNativePG Cluster, which makes its read-write Service (`-rw`). */
import { kubeName, tenantName } from '../names.js';
import type { KubernetesEngine } from './engine.js';

export const postgresql: KubernetesEngine = {
  name: 'postgresql',
  runsAs: 'CloudNativePG',
  image: 'ghcr.io/cloudnative-pg/postgresql:16',
  serviceName: (workload) => `${kubeName(workload.id)}-rw`,
  username: (workload) => tenantName(workload.id),
  database: (workload) => tenantName(workload.id),
  connectionString: (login, database) => `postgresql://${login}/${database}`,
  secretData: () => ({}),
  storageGb: (workload) => workload.storageGb ?? 1,
  dumpExtension: 'dump',
  dumpCommand: ({ host, port, file }) =>
    `PGPASSWORD="$TENANT_PASSWORD" pg_dump -Fc -h ${host} -p ${port} -U "$TENANT_USER" -d "$TENANT_DATABASE" -f "${file}"`,
  loadCommand: ({ host, port, file }) =>
    `PGPASSWORD="$TENANT_PASSWORD" pg_restore --clean --if-exists --no-owner --no-acl -h ${host} -p ${port} -U "$TENANT_USER" -d "$TENANT_DATABASE" "${file}"`,
};
