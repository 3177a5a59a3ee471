import { hkdfSync } from 'node:crypto';

export const DERIVED_KEY_BYTES = 32;

/**
 * A key for one purpose, derived from the platform key with HKDF-SHA256. `info` names the purpose
 * (`cloudplane access token`, `cloudplane totp secret`, …): keys of different purposes are
 * independent, so a leak of one never exposes another or the platform key.
 */
export function deriveKey(platformKey: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', platformKey, Buffer.alloc(0), info, DERIVED_KEY_BYTES));
}
