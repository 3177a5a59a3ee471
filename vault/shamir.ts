import { randomBytes } from 'node:crypto';

/*
 * Shamir's secret sharing over GF(2^8) with the AES field polynomial x^8 + x^4 + x^3 + x + 1.
 * Each byte of the secret is the constant term of its own random polynomial of degree
 * `threshold - 1`; share i holds every polynomial evaluated at x = i. Any `threshold` shares
 * determine the polynomials (Lagrange interpolation at 0); fewer reveal nothing about the secret.
 */

const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
{
  let value = 1;
  for (let power = 0; power < 255; power++) {
    EXP[power] = value;
    LOG[value] = power;
    // Multiply by the generator 3: value * 2 (reduced) xor value.
    let doubled = value << 1;
    if (doubled & 0x100) doubled ^= 0x11b;
    value = doubled ^ value;
  }
  for (let power = 255; power < 510; power++) EXP[power] = EXP[power - 255]!;
}

export function gfMultiply(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[LOG[a]! + LOG[b]!]!;
}

export function gfDivide(a: number, b: number): number {
  if (b === 0) throw new RangeError('division by zero in GF(256)');
  if (a === 0) return 0;
  return EXP[LOG[a]! + 255 - LOG[b]!]!;
}

/** A share: the x coordinate (1..255) followed by one y byte per secret byte. */
export type Share = Buffer;

/**
 * Splits `secret` into `shares` shares of which any `threshold` reconstruct it. Throws a
 * RangeError for impossible parameters (threshold above shares, more than 255 shares, an empty
 * secret).
 */
export function splitSecret(secret: Buffer, shares: number, threshold: number): Share[] {
  if (!Number.isInteger(shares) || shares < 1 || shares > 255) {
    throw new RangeError('shares must be an integer from 1 to 255');
  }
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > shares) {
    throw new RangeError('threshold must be an integer from 1 to the number of shares');
  }
  if (secret.length === 0) throw new RangeError('cannot split an empty secret');
  const result = Array.from({ length: shares }, (_, index) => {
    const share = Buffer.alloc(secret.length + 1);
    share[0] = index + 1;
    return share;
  });
  for (let byte = 0; byte < secret.length; byte++) {
    // Coefficients 1..threshold-1 are fresh random bytes for every secret byte.
    const coefficients = [secret[byte]!, ...randomBytes(threshold - 1)];
    for (const share of result) {
      const x = share[0]!;
      let y = 0;
      for (let degree = coefficients.length - 1; degree >= 0; degree--) {
        y = gfMultiply(y, x) ^ coefficients[degree]!;
      }
      share[byte + 1] = y;
    }
  }
  return result;
}

/**
 * Interpolates the secret from shares. With fewer shares than the threshold the result is a
 * wrong value, not an error: callers check it (the barrier key opens only with the right one).
 * Throws a RangeError for shares of unequal length or repeated x coordinates.
 */
export function combineShares(shares: readonly Share[]): Buffer {
  if (shares.length === 0) throw new RangeError('no shares to combine');
  const length = shares[0]!.length;
  if (length < 2) throw new RangeError('a share holds at least one byte of the secret');
  const xs = shares.map((share) => share[0]!);
  if (shares.some((share) => share.length !== length)) throw new RangeError('shares differ in length');
  if (xs.some((x) => x === 0)) throw new RangeError('a share has the x coordinate 0');
  if (new Set(xs).size !== xs.length) throw new RangeError('the same share was given twice');
  const secret = Buffer.alloc(length - 1);
  for (let byte = 0; byte < secret.length; byte++) {
    let value = 0;
    for (let i = 0; i < shares.length; i++) {
      // Lagrange basis polynomial i evaluated at 0: prod over j != i of x_j / (x_j - x_i); minus is xor.
      let basis = 1;
      for (let j = 0; j < shares.length; j++) {
        if (j === i) continue;
        basis = gfMultiply(basis, gfDivide(xs[j]!, xs[j]! ^ xs[i]!));
      }
      value ^= gfMultiply(shares[i]![byte + 1]!, basis);
    }
    secret[byte] = value;
  }
  return secret;
}
