/**
 * Ids of the data-services family: a prefix and 12 hex digits (`db_…`, `nfs_…`, `bkp_…`,
 * `rst_…`). An id is also the object's name, the REST id, and what the runtime names the role,
 * database, process or directory after, so it must be a valid identifier everywhere: lower-case
 * letters, digits and one underscore. Kubernetes names take no underscore, so the object name
 * uses a hyphen (`db-…`) and the REST id is its underscore form.
 */
import { createHash, randomBytes } from 'node:crypto';

export type DataServicePrefix = 'db' | 'nfs' | 'bkp' | 'rst';

export function newDataServiceId(prefix: DataServicePrefix): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** The object name of a REST id: `db_0a1b…` → `db-0a1b…`. */
export function objectNameOf(id: string): string {
  return id.replace('_', '-');
}

/** The REST id of an object name: `db-0a1b…` → `db_0a1b…`; names made with kubectl keep theirs. */
export function restIdOf(name: string): string {
  return /^(db|nfs|bkp|rst)-[0-9a-f]{12}$/.test(name) ? name.replace('-', '_') : name;
}

/**
 * The id the runtime names things after: the REST id for objects the API made; for a name chosen
 * with kubectl, a digest of namespace and name, so two organizations' `orders` never share a role.
 */
export function workloadIdOf(prefix: DataServicePrefix, namespace: string, name: string): string {
  const id = restIdOf(name);
  if (new RegExp(`^${prefix}_[0-9a-f]{12}$`).test(id)) return id;
  return `${prefix}_${createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 12)}`;
}
