import { createHash, randomBytes } from 'node:crypto';

/**
 * A bearer secret with 256 random bits: `prefix` then base64url. The prefix lets people and secret
 * scanners tell what a leaked value is.
 */
export function newOpaqueToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * How a high-entropy token is stored and looked up: SHA-256 in hex. Guessing a preimage of 256
 * random bits is hopeless, so no salt or slow hash is needed, and lookup stays one index probe.
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
