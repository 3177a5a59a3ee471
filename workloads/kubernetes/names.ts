/**
 * How a workload's ids name things in a cluster and inside its engine. Names follow Kubernetes
 * (hyphens): `db_0123456789ab` is `db-0123456789ab`.
 */
import { WorkloadError } from '../runtime.js';

/** The volume a database's StatefulSet keeps its data on. */
export const DATA_VOLUME = 'data';

/** A platform id as a Kubernetes name: `db_0123456789ab` → `db-0123456789ab`. */
export function kubeName(id: string): string {
  const name = id.replace(/_/g, '-');
  if (!/^[a-z]([a-z0-9-]{0,40}[a-z0-9])?$/.test(name)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a Kubernetes object`);
  }
  return name;
}

/** The user and database name inside the engine: the id as is (a valid SQL and MongoDB name). */
export function tenantName(id: string): string {
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(id)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a database or a user`);
  }
  return id;
}

export const secretName = (id: string): string => `${kubeName(id)}-credentials`;
/** The claim a StatefulSet's only pod gets from its `data` template. */
export const dataClaimName = (id: string): string => `${DATA_VOLUME}-${kubeName(id)}-0`;
