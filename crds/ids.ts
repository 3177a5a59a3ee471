/**
 * REST ids and object names of every kind the API names itself: a prefix and 12 hex digits
 * (`db_0a1b…`). The REST id takes an underscore, the object name a hyphen (`db-0a1b…`), as
 * Kubernetes names take no underscore; the id is also what a workload runtime names the role,
 * database, process, port or directory after, so it must be a valid identifier everywhere.
 *
 * Only a string of exactly that pattern is mapped; anything else is taken as it is, which is how
 * objects applied with kubectl under a name of the applier's choosing keep that name as their id.
 * A REST id that matches neither an API-made id nor an existing name is then simply not found: a
 * 404 at the route, never a malformed name sent to the store.
 *
 * The VPC family is the exception: its ids (uuids, `sg-…`) are valid object names already, so its
 * REST id and object name agree (`controllers/vpc/ids.ts`).
 */
import { createHash, randomBytes } from 'node:crypto';

export const ID_PREFIXES = ['db', 'nfs', 'bkp', 'rst', 'esc', 'stk', 'exec'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const HEX_DIGITS = 12;
const REST_ID = new RegExp(`^(${ID_PREFIXES.join('|')})_[0-9a-f]{${HEX_DIGITS}}$`);
const OBJECT_NAME = new RegExp(`^(${ID_PREFIXES.join('|')})-[0-9a-f]{${HEX_DIGITS}}$`);

/** A new REST id: `db_` and 12 random hex digits. */
export function newRestId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(HEX_DIGITS / 2).toString('hex')}`;
}

/** The object name of a REST id (`db_0a1b…` → `db-0a1b…`); any other id is a name already. */
export function objectNameOf(id: string): string {
  return REST_ID.test(id) ? id.replace('_', '-') : id;
}

/** The REST id of an object name (`db-0a1b…` → `db_0a1b…`); names chosen with kubectl keep theirs. */
export function restIdOf(name: string): string {
  return OBJECT_NAME.test(name) ? name.replace('-', '_') : name;
}

/**
 * The id a workload runtime names things after: the REST id for objects the API made; for a name
 * chosen with kubectl, `<prefix>_` and a digest of namespace and name, so two organizations'
 * `orders` never share a role, a port or a directory.
 */
export function workloadIdOf(prefix: IdPrefix, namespace: string, name: string): string {
  const id = restIdOf(name);
  if (id.startsWith(`${prefix}_`) && REST_ID.test(id)) return id;
  const digest = createHash('sha256').update(`${namespace}/${name}`).digest('hex');
  return `${prefix}_${digest.slice(0, HEX_DIGITS)}`;
}
