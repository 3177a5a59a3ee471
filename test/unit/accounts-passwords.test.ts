import { describe, expect, it } from 'vitest';
import {
  checkPasswordPolicy,
  DecoyPassword,
  hashPassword,
  needsRehash,
  OWASP_SCRYPT_COST,
  verifyPassword,
} from '../../accounts/passwords.js';

const FAST = { N: 2 ** 10, r: 8, p: 1 };

describe('password hashes', () => {
  it('default to OWASP cost in a self-describing string', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
  });

  it('salt every hash', async () => {
    expect(await hashPassword('same password', FAST)).not.toBe(await hashPassword('same password', FAST));
  });

  it('compare after NFKC normalisation', async () => {
    const hash = await hashPassword('ﬁne passphrase', FAST);
    expect(await verifyPassword('fine passphrase', hash)).toBe(true);
  });

  it.each([
    ['another scheme', 'bcrypt$2b$10$abc'],
    ['a truncated hash', 'scrypt$1024$8$1$c2FsdA=='],
    ['a non-numeric cost', 'scrypt$lots$8$1$c2FsdA==$aGFzaA=='],
    ['a key of the wrong length', 'scrypt$1024$8$1$c2FsdA==$aGFzaA=='],
  ])('never match %s', async (_case, encoded) => {
    expect(await verifyPassword('anything at all', encoded)).toBe(false);
  });

  it('ask for a rehash when the cost differs from the current one', async () => {
    const weak = await hashPassword('a password', FAST);
    expect(needsRehash(weak, OWASP_SCRYPT_COST)).toBe(true);
    expect(needsRehash(weak, FAST)).toBe(false);
    expect(needsRehash('garbage', FAST)).toBe(true);
  });

  it('verify unknown users against a real decoy hash, never matching', async () => {
    const decoy = new DecoyPassword(FAST);
    expect(await decoy.verify('any password')).toBe(false);
    expect(await decoy.verify('any password')).toBe(false);
  });
});

describe('password policy', () => {
  it.each([
    ['8 ASCII characters', 'abcdefgh'],
    ['256 characters', 'p'.repeat(256)],
    ['8 emoji (16 UTF-16 units, 8 code points)', '🔐'.repeat(8)],
    ['a long passphrase with spaces', 'the quick brown fox jumps over the lazy dog'],
  ])('accepts %s', (_case, password) => {
    expect(() => checkPasswordPolicy(password, 'password')).not.toThrow();
  });

  it.each([
    ['7 characters', 'abcdefg', 'password must be 8 to 256 characters long, got 7'],
    ['257 characters', 'p'.repeat(257), 'password must be 8 to 256 characters long, got 257'],
    ['4 emoji', '🔐'.repeat(4), 'password must be 8 to 256 characters long, got 4'],
  ])('refuses %s naming the field', (_case, password, message) => {
    expect(() => checkPasswordPolicy(password, 'password')).toThrow(message);
  });
});
