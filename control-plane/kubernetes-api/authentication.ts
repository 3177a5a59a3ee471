import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/** Who calls the Kubernetes API, and which namespaces they may read and write. */
export interface KubeIdentity {
  user: string;
  namespaces: 'all' | string[];
}

/**
 * Resolves a request's credentials: `undefined` when there are none or they are not valid (the
 * API answers 401). Throws only when it cannot decide (its own backend failed).
 */
export type KubeAuthenticator = (req: Request) => Promise<KubeIdentity | undefined>;

/** The name the startup token's holder appears under in messages and logs. */
export const STARTUP_TOKEN_USER = 'cloudplane:startup';

function bearerToken(req: Request): string | undefined {
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
export function mayUse(identity: KubeIdentity, namespace: string): boolean {
  return identity.namespaces === 'all' || identity.namespaces.includes(namespace);
}
