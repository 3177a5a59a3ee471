/**
 * ServiceAccount tokens: JWTs this API signs (TokenRequest, `kubectl create token`) and accepts
 * as bearer tokens. As on a kube-apiserver, a token names the account's uid: it stops working
 * when the account is deleted, even if it is created again under the same name.
 */
import { jwtVerify, SignJWT } from 'jose';
import type { ApiStore } from './converted-kinds.js';
import { SERVICE_ACCOUNT_KIND } from '../built-in-kinds.js';
import { isStoreError, type KubeObject } from '../types.js';
import { bearerToken, type KubeAuthenticator, type RbacIdentity } from './authentication.js';

const ISSUER = 'https://cloudplane.dev/serviceaccount';
export const DEFAULT_AUDIENCE = 'cloudplane';
/** A kube-apiserver's default and smallest lifetime. */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const MIN_EXPIRATION_SECONDS = 600;

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

interface ServiceAccountClaims {
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
}

export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export function serviceAccountIdentity(account: ServiceAccountRef): RbacIdentity {
  return {
    user: serviceAccountUser(account.namespace, account.name),
    uid: account.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'],
  };
}

export interface MintedToken {
  token: string;
  expirationTimestamp: Date;
}

export async function mintServiceAccountToken(
  key: Uint8Array,
  account: ServiceAccountRef,
  options: { audiences: readonly string[]; expirationSeconds: number; now: Date },
): Promise<MintedToken> {
  const issuedAt = Math.floor(options.now.getTime() / 1000);
  const expiresAt = issuedAt + options.expirationSeconds;
  const claims: ServiceAccountClaims = {
    'kubernetes.io': {
      namespace: account.namespace,
      serviceaccount: { name: account.name, uid: account.uid },
    },
  };
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(serviceAccountUser(account.namespace, account.name))
    .setAudience([...options.audiences])
    .setIssuedAt(issuedAt)
    .setNotBefore(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key);
  return { token, expirationTimestamp: new Date(expiresAt * 1000) };
}

/** The account a token names and the audiences it is for, or undefined when it is not one of ours or has expired. */
export async function verifyServiceAccountToken(
  key: Uint8Array,
  token: string,
  now: Date,
): Promise<{ account: ServiceAccountRef; audiences: string[] } | undefined> {
  try {
    const { payload } = await jwtVerify<ServiceAccountClaims>(token, key, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: now,
    });
    const claim = payload['kubernetes.io'];
    if (!claim?.serviceaccount?.name || !claim.namespace) return undefined;
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    return {
      account: { namespace: claim.namespace, name: claim.serviceaccount.name, uid: claim.serviceaccount.uid },
      audiences,
    };
  } catch {
    return undefined;
  }
}

/** The ServiceAccount, or undefined when it does not exist. */
export async function readServiceAccount(
  store: ApiStore,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  try {
    return await store.get(SERVICE_ACCOUNT_KIND, namespace, name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** Accepts a ServiceAccount token whose account still exists with the uid it was issued for. */
export function serviceAccountAuthenticator(
  store: ApiStore,
  key: Uint8Array,
  now: () => Date,
): KubeAuthenticator {
  return async (req) => {
    const token = bearerToken(req);
    if (token === undefined || token.split('.').length !== 3) return undefined;
    const verified = await verifyServiceAccountToken(key, token, now());
    if (verified === undefined) return undefined;
    const { account } = verified;
    const current = await readServiceAccount(store, account.namespace, account.name);
    if (current === undefined || current.metadata.uid !== account.uid) return undefined;
    return serviceAccountIdentity(account);
  };
}
