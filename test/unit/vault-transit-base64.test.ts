import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../vault/transit.js';
import { VaultError } from '../../vault/vault-error.js';

describe('transit base64 input', () => {
  it.each([
    ['', ''],
    ['QQ==', 'A'],
    ['QUI=', 'AB'],
    ['QUJD', 'ABC'],
    ['QUJDRA==', 'ABCD'],
    ['+/+/', '\u00fb\u00ff\u00bf'],
  ])('decodes %j', (value, text) => {
    expect(decodeBase64(value, 'plaintext').toString('latin1')).toBe(text);
  });

  it.each([
    ['Q', 'a lone character'],
    ['QQ', 'a group without its padding'],
    ['QQ=', 'a group short of its padding'],
    ['Q===', 'three padding characters'],
    ['====', 'padding alone'],
    ['QQ==QQ==', 'padding inside'],
    ['QUJD\n', 'a line break'],
    ['QU JD', 'a space'],
    ['QUJ-', 'the URL-safe alphabet'],
    ['QUJDRA=', 'a length that is not a whole number of groups'],
  ])('refuses %j (%s), naming the field', (value) => {
    expect(() => decodeBase64(value, 'plaintext')).toThrow(VaultError);
    expect(() => decodeBase64(value, 'plaintext')).toThrow('plaintext must be base64');
  });
});
