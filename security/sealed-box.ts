import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A sealed value that cannot be opened: tampered with, sealed under another key, or bound to another row. */
export class SealedBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedBoxError';
  }
}

/** Nonces drawn per refill of the pool: one call into OpenSSL per batch rather than per seal. */
const NONCE_BATCH = 256;
let noncePool = Buffer.alloc(0);
let nonceOffset = 0;

/**
 * A fresh random nonce. The pool is replaced, never refilled in place, so no bytes are handed out
 * twice and a nonce given out stays as it was (node pools `randomUUID` the same way).
 */
function freshNonce(): Buffer {
  if (nonceOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * NONCE_BATCH);
    nonceOffset = 0;
  }
  const nonce = noncePool.subarray(nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new RangeError(`a sealed-box key has ${KEY_BYTES} bytes, got ${key.length}`);
}

/**
 * Encrypts with AES-256-GCM under a fresh random nonce. `associatedData` binds the ciphertext to
 * where it is stored (`totp:<user id>`): copied to another row, it no longer opens. The result is
 * `v1:<base64 of nonce, ciphertext and tag>`, so the format can change without losing old values.
 */
export function seal(key: Buffer, plaintext: Buffer | string, associatedData: string): string {
  checkKey(key);
  const nonce = freshNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return `${VERSION}:${Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64')}`;
}

/** Decrypts what `seal` produced with the same key and associated data; throws `SealedBoxError` otherwise. */
export function open(key: Buffer, sealed: string, associatedData: string): Buffer {
  checkKey(key);
  const separator = sealed.indexOf(':');
  const version = sealed.slice(0, separator);
  if (separator < 0 || version !== VERSION) {
    throw new SealedBoxError(`unknown sealed-box format ${JSON.stringify(version || sealed.slice(0, 8))}`);
  }
  const box = Buffer.from(sealed.slice(separator + 1), 'base64');
  if (box.length < NONCE_BYTES + TAG_BYTES) throw new SealedBoxError('sealed box is truncated');
  const nonce = box.subarray(0, NONCE_BYTES);
  const tag = box.subarray(box.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(box.subarray(NONCE_BYTES, box.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new SealedBoxError('sealed box does not open: wrong key, wrong associated data, or altered');
  }
}
