import { organizationNamespace } from '../../accounts/organizations.js';
import {
  isStoreError,
  type KubeObject,
  type ObjectStore,
  type ResourceType,
} from '../../control-plane/types.js';
import { forbidden, notFound } from '../errors.js';
import { isDeleted } from './deleted.js';
import { NAMESPACE_KIND } from '../../control-plane/built-in-kinds.js';
import type { Principal } from '../../accounts/principal.js';
import { ORGANIZATION_LABEL } from '../../crds/annotations.js';

/**
 * The namespace holding the caller's resources: their current organization's. Another
 * organization's resources are simply not in it, which is why they answer 404.
 */
export function tenantNamespace(principal: Principal): string {
  if (!principal.organizationId) {
    throw forbidden('this operation needs a current organization; choose one with PATCH /v1/auth/me');
  }
  return organizationNamespace(principal.organizationId);
}

const ensuredNamespaces = new WeakMap<ObjectStore, Set<string>>();

/**
 * `tenantNamespace`, created when it does not exist yet: on a real cluster nothing can be created
 * in a namespace that is not there. Called before creates; each namespace is checked once per
 * process.
 */
export async function ensureTenantNamespace(store: ObjectStore, principal: Principal): Promise<string> {
  const namespace = tenantNamespace(principal);
  let known = ensuredNamespaces.get(store);
  if (!known) ensuredNamespaces.set(store, (known = new Set()));
  if (known.has(namespace)) return namespace;
  try {
    await store.create(NAMESPACE_KIND, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { [ORGANIZATION_LABEL]: principal.organizationId! } },
    });
  } catch (error) {
    if (!isStoreError(error, 'AlreadyExists')) throw error;
  }
  known.add(namespace);
  return namespace;
}

/** How one family finds an object of an organization by the id the REST API gives it. */
export interface OrganizationLookup<T extends KubeObject> {
  type: ResourceType;
  /** The object's name for a REST id; the id itself when omitted. */
  objectName?: (id: string) => string;
  /** What the 404 calls the object: `<noun> <id> not found`. */
  noun: string;
  /** Whether a found object is there for the caller; by default, when its deletion has not begun. */
  visible?: (object: T) => boolean;
  /**
   * A name the store refuses as malformed is missing too: ids that are not even valid names answer
   * like an unknown one, so nothing tells a caller which ids exist.
   */
  malformedIsMissing?: boolean;
}

/**
 * The object of `id` in the caller's organization, or a 404. Another organization's object is
 * simply not in its namespace, so it answers exactly like a missing one.
 */
export async function findInOrganization<T extends KubeObject>(
  store: ObjectStore,
  principal: Principal,
  lookup: OrganizationLookup<T>,
  id: string,
): Promise<T> {
  return findInNamespace(store, tenantNamespace(principal), lookup, id);
}

/** `findInOrganization` in an organization's namespace already known, with the 404's own message. */
export async function findInNamespace<T extends KubeObject>(
  store: ObjectStore,
  namespace: string,
  lookup: OrganizationLookup<T>,
  id: string,
  missing = `${lookup.noun} ${id} not found`,
): Promise<T> {
  const visible = lookup.visible ?? ((object: T) => !isDeleted(object));
  try {
    const object = await store.get<T>(lookup.type, namespace, lookup.objectName?.(id) ?? id);
    if (visible(object)) return object;
  } catch (error) {
    const malformed =
      lookup.malformedIsMissing === true &&
      (isStoreError(error, 'Invalid') || isStoreError(error, 'BadRequest'));
    if (!isStoreError(error, 'NotFound') && !malformed) throw error;
  }
  throw notFound(missing);
}
