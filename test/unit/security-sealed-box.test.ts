import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey } from '../../security/key-derivation.js';
import { open, seal, SealedBoxError } from '../../security/sealed-box.js';

const key = randomBytes(32);

describe('sealed box', () => {
  it('opens what it sealed, under the same key and associated data', () => {
    const sealed = seal(key, 'the secret', 'totp:usr_1');
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(open(key, sealed, 'totp:usr_1').toString('utf8')).toBe('the secret');
  });

  it('uses a fresh nonce every time', () => {
    expect(seal(key, 'same', 'ctx')).not.toBe(seal(key, 'same', 'ctx'));
  });

  function flipLastByte(sealed: string): string {
    const box = Buffer.from(sealed.slice(3), 'base64');
    box[box.length - 1]! ^= 1;
    return `v1:${box.toString('base64')}`;
  }

  it.each([
    ['another row', (sealed: string) => open(key, sealed, 'totp:usr_2')],
    ['another key', (sealed: string) => open(randomBytes(32), sealed, 'totp:usr_1')],
    ['an altered byte', (sealed: string) => open(key, flipLastByte(sealed), 'totp:usr_1')],
    ['a truncated box', () => open(key, 'v1:AAAA', 'totp:usr_1')],
    ['an unknown version', (sealed: string) => open(key, sealed.replace(/^v1/, 'v9'), 'totp:usr_1')],
  ])('refuses to open a box moved to %s', (_case, attempt) => {
    const sealed = seal(key, 'the secret', 'totp:usr_1');
    expect(() => attempt(sealed)).toThrow(SealedBoxError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => seal(randomBytes(16), 'x', 'ctx')).toThrow('a sealed-box key has 32 bytes, got 16');
  });
});

describe('deriveKey', () => {
  it('derives a stable 32-byte key per purpose, independent across purposes', () => {
    const platformKey = randomBytes(32);
    const a = deriveKey(platformKey, 'cloudplane access token');
    expect(a).toHaveLength(32);
    expect(deriveKey(platformKey, 'cloudplane access token').equals(a)).toBe(true);
    expect(deriveKey(platformKey, 'cloudplane totp secret').equals(a)).toBe(false);
    expect(deriveKey(randomBytes(32), 'cloudplane access token').equals(a)).toBe(false);
  });
});
