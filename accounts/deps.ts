import { webcrypto } from 'node:crypto';
import type { AccountsConfig } from '../config/accounts.js';
import type { PublicUrl } from '../config/http.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { Logger } from '../observability/logger.js';
import { deriveKey } from '../security/key-derivation.js';
import { DecoyPassword, OWASP_SCRYPT_COST, type ScryptCost } from './passwords.js';

/** Keys derived from the platform key, one per purpose. */
export interface AccountKeys {
  /**
   * Signs and verifies access tokens (HS256). Imported once: jose re-imports raw key bytes on
   * every call, a visible cost on every authenticated request.
   */
  accessToken: webcrypto.CryptoKey;
  /** Seals TOTP secrets at rest. */
  totpSecret: Buffer;
  /** Keys the HMAC under which backup codes are stored. */
  backupCode: Buffer;
}

/** What the accounts domain works with; built once by `createAccountsDeps`. */
export interface AccountsDeps {
  database: DataPlane;
  config: AccountsConfig;
  /** The base of the links in account mail and the issuer of access tokens. */
  publicUrl: PublicUrl;
  /** Request handlers swap in the request's logger (see `withLogger`). */
  logger: Logger;
  now: () => Date;
  keys: AccountKeys;
  passwordCost: ScryptCost;
  /** Verifies logins of unknown e-mails at the cost of a real one. */
  decoyPassword: DecoyPassword;
}

export interface AccountsDepsOptions {
  database: DataPlane;
  config: AccountsConfig;
  publicUrl: PublicUrl;
  logger: Logger;
  now?: () => Date;
  /** The key access tokens, TOTP secrets and backup codes are derived from. */
  platformKey: Buffer;
  /**
   * The scrypt cost of new password hashes; defaults to OWASP's. Hashes of another cost are
   * replaced at their next successful login.
   */
  passwordCost?: ScryptCost;
}

export async function accountKeys(platformKey: Buffer): Promise<AccountKeys> {
  return {
    accessToken: await webcrypto.subtle.importKey(
      'raw',
      deriveKey(platformKey, 'cloudplane access token'),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    ),
    totpSecret: deriveKey(platformKey, 'cloudplane totp secret'),
    backupCode: deriveKey(platformKey, 'cloudplane backup code'),
  };
}

/** Builds the accounts dependencies, deriving their keys from the platform key. */
export async function createAccountsDeps(options: AccountsDepsOptions): Promise<AccountsDeps> {
  const passwordCost = options.passwordCost ?? OWASP_SCRYPT_COST;
  return {
    database: options.database,
    config: options.config,
    publicUrl: options.publicUrl,
    logger: options.logger,
    now: options.now ?? (() => new Date()),
    keys: await accountKeys(options.platformKey),
    passwordCost,
    decoyPassword: new DecoyPassword(passwordCost),
  };
}

const LOGGER = Symbol("the request's logger");

/**
 * Per request the dependencies are an object whose prototype reads the shared ones (nothing copied)
 * and makes the request's logger on first use: a child logger costs, and most requests log nothing.
 * One prototype per set of dependencies, so every request's object has the same shape.
 */
const scopedPrototypes = new WeakMap<AccountsDeps, object>();

/** The same dependencies logging through `logger` (a request's, carrying its id). */
export function withLogger(deps: AccountsDeps, logger: () => Logger): AccountsDeps {
  let prototype = scopedPrototypes.get(deps);
  if (!prototype) {
    prototype = Object.create(deps, {
      logger: {
        enumerable: true,
        get(this: { [LOGGER]: () => Logger }) {
          return this[LOGGER]();
        },
      },
    }) as object;
    scopedPrototypes.set(deps, prototype);
  }
  const scoped = Object.create(prototype) as AccountsDeps & { [LOGGER]: () => Logger };
  scoped[LOGGER] = logger;
  return scoped;
}
