import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who calls the Kubernetes API. The platform's own credentials carry a namespace grant (the
 * start-up token every namespace, a platform user their organization's); every other identity
 * (a ServiceAccount) is decided by the RBAC objects in the store.
 */
export type KubeIdentity = GrantedIdentity | RbacIdentity;

export interface GrantedIdentity {
  user: string;
  namespaces: 'all' | string[];
}

export interface RbacIdentity {
  user: string;
  uid?: string;
  groups: string[];
}

export function isGranted(identity: KubeIdentity): identity is GrantedIdentity {
  return 'namespaces' in identity;
}

/**
 * Resolves a request's credentials: `undefined` when there are none or they are not valid (the
 * API answers 401). Throws only when it cannot decide (its own backend failed).
 */
export type KubeAuthenticator = (req: { headers: IncomingHttpHeaders }) => Promise<KubeIdentity | undefined>;

/** The name the startup token's holder appears under in messages and logs. */
export const STARTUP_TOKEN_USER = 'cloudplane:startup';

export function bearerToken(req: { headers: IncomingHttpHeaders }): string | undefined {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Accepts `Authorization: Bearer <token>` carrying the token generated at start-up (the one
 * written to the kubeconfig): its holder may use every namespace. The comparison takes the same
 * time whatever the candidate, so the token cannot be guessed byte by byte.
 */
export function startupTokenAuthenticator(token: string): KubeAuthenticator {
  if (token.length === 0) throw new Error('the startup token must not be empty');
  const expected = digest(token);
  return async (req) => {
    const candidate = bearerToken(req);
    if (candidate === undefined || !timingSafeEqual(digest(candidate), expected)) return undefined;
    return { user: STARTUP_TOKEN_USER, namespaces: 'all' };
  };
}

/** Tries each authenticator in turn; the first that recognises the caller decides. */
export function combineKubeAuthenticators(...authenticators: KubeAuthenticator[]): KubeAuthenticator {
  return async (req) => {
    for (const authenticate of authenticators) {
      const identity = await authenticate(req);
      if (identity !== undefined) return identity;
    }
    return undefined;
  };
}

/** Whether `identity` may read and write objects in `namespace`. */
export function mayUse(identity: GrantedIdentity, namespace: string): boolean {
  return identity.namespaces === 'all' || identity.namespaces.includes(namespace);
}
