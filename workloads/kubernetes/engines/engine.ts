/**
 * What the Kubernetes runtime needs of one database engine: how its server runs, how clients
 * reach it, what its Secret holds, and how it is dumped and loaded. The rest (Secrets, Services,
 * StatefulSets, Jobs) is the same for every engine and rendered in render.ts.
 */
import type { DatabaseWorkload } from '../../runtime.js';
import { secretName } from '../names.js';

/** Where a dump or load Job reaches the server, and the file it writes or reads. */
export interface DumpPlace {
  host: string;
  port: number;
  file: string;
}

export interface KubernetesEngine {
  /** The engine's name in the engine list (crds/database-engines). */
  name: string;
  /** A CloudNativePG Cluster (which makes its own Services), or a StatefulSet and Service of ours. */
  runsAs: 'CloudNativePG' | 'StatefulSet';
  /**
   * The image its server runs, by repository and tag, unless the configuration names another under
   * the engine's name; a workload's version replaces the tag.
   */
  image: string;
  /** The Service clients reach, in the workload's namespace. */
  serviceName(workload: DatabaseWorkload): string;
  username(workload: DatabaseWorkload): string;
  /** The database name or number a client opens. */
  database(workload: DatabaseWorkload): string;
  /** `login` is `user:password@host:port`, already URL-encoded. */
  connectionString(login: string, database: string): string;
  /** Keys the Secret holds beyond the tenant's `username` and `password`, as plain text. */
  secretData(workload: DatabaseWorkload, password: string, adminPassword: string): Record<string, string>;
  /** A StatefulSet engine's server container, beyond its name, image and port. */
  container?(workload: DatabaseWorkload): Record<string, unknown>;
  /** A StatefulSet engine's volumes beyond its data claim. */
  volumes?(workload: DatabaseWorkload): unknown[];
  /** The size of its data claim. */
  storageGb(workload: DatabaseWorkload): number;
  /** The extension of its dump files. */
  dumpExtension: string;
  /** Writes a dump of the tenant's database to `file`. */
  dumpCommand(place: DumpPlace): string;
  /** Loads a dump of `sourceId` into the tenant's database, replacing what it holds. */
  loadCommand(place: DumpPlace & { sourceId: string }): string;
}

/** The account the platform keeps for itself in MariaDB and MongoDB servers. */
export const ADMIN_USER = 'cloudplane_admin';

export const fromSecret = (workload: DatabaseWorkload, name: string, key: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: secretName(workload.id), key } },
});

/** The tenant's login, as the server container and the dump Jobs get it. */
export function tenantEnv(workload: DatabaseWorkload, database: string) {
  return [
    fromSecret(workload, 'TENANT_USER', 'username'),
    fromSecret(workload, 'TENANT_PASSWORD', 'password'),
    { name: 'TENANT_DATABASE', value: database },
  ];
}

export const exec = (script: string) => ({ exec: { command: ['sh', '-c', script] } });
export const probe = (script: string) => ({
  ...exec(script),
  periodSeconds: 5,
  timeoutSeconds: 5,
  failureThreshold: 3,
});
