import type { KubeAuthenticator } from '../control-plane/kubernetes-api/index.js';
import { isUnauthenticated } from './account-error.js';
import type { Authenticator } from './principal.js';

/**
 * Platform credentials (session tokens, API keys) on the Kubernetes API: the caller may use the
 * namespace of their organization, and nothing when they have none.
 */
export function platformKubeAuthenticator(
  authenticator: Authenticator,
  namespaceOf: (organizationId: string) => string,
): KubeAuthenticator {
  return async (req) => {
    let principal;
    try {
      principal = await authenticator(req);
    } catch (error) {
      if (isUnauthenticated(error)) return undefined;
      throw error;
    }
    if (principal === undefined) return undefined;
    const namespaces = principal.organizationId === undefined ? [] : [namespaceOf(principal.organizationId)];
    return { user: principal.id, namespaces };
  };
}
