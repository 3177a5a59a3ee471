import { organizationNamespace } from '../../accounts/organizations.js';
import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { forbidden } from '../errors.js';
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
