import { randomBytes } from 'node:crypto';

/** Lowercase base32: ids stay valid in DNS labels and Kubernetes names once the `_` is mapped. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** `length` characters of 5 random bits each (256 is a multiple of 32, so every character is uniform). */
export function randomBase32(length: number): string {
  let text = '';
  for (const byte of randomBytes(length)) text += ALPHABET[byte & 31];
  return text;
}

export type IdPrefix = 'usr' | 'org' | 'sess' | 'key' | 'inv';

/** A new identifier such as `usr_` followed by 24 random characters (120 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase32(24)}`;
}
