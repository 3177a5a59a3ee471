import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { combineShares, gfDivide, gfMultiply, splitSecret } from '../../vault/shamir.js';

/** Every k-element subset of `items`. */
function subsets<T>(items: T[], k: number): T[][] {
  if (k === 0) return [[]];
  return items.flatMap((item, index) =>
    subsets(items.slice(index + 1), k - 1).map((rest) => [item, ...rest]),
  );
}

describe('GF(256) arithmetic', () => {
  it.each([
    [0x53, 0xca, 0x01],
    [0x57, 0x83, 0xc1],
    [0x02, 0x80, 0x1b],
  ])('multiplies %i by %i to %i (AES field)', (a, b, product) => {
    expect(gfMultiply(a, b)).toBe(product);
    expect(gfDivide(product, b)).toBe(a);
  });

  it('has an inverse for every non-zero element', () => {
    for (let a = 1; a < 256; a++) expect(gfMultiply(a, gfDivide(1, a))).toBe(1);
  });
});

describe('Shamir secret sharing', () => {
  it.each([
    [1, 1],
    [3, 2],
    [5, 3],
    [5, 5],
    [7, 4],
  ])('with %i shares and threshold %i, every threshold-sized subset reconstructs the secret', (n, t) => {
    const secret = randomBytes(32);
    const shares = splitSecret(secret, n, t);
    expect(shares).toHaveLength(n);
    for (const subset of subsets(shares, t)) expect(combineShares(subset).equals(secret)).toBe(true);
    for (const subset of subsets(shares, n)) expect(combineShares(subset).equals(secret)).toBe(true);
  });

  it.each([
    [5, 3],
    [5, 5],
    [4, 2],
  ])('with %i shares and threshold %i, fewer shares do not reconstruct the secret', (n, t) => {
    const secret = randomBytes(32);
    const shares = splitSecret(secret, n, t);
    for (const subset of subsets(shares, t - 1)) expect(combineShares(subset).equals(secret)).toBe(false);
  });

  it('draws fresh random polynomials: the same secret splits differently every time', () => {
    const secret = randomBytes(16);
    const first = splitSecret(secret, 5, 3);
    const second = splitSecret(secret, 5, 3);
    expect(first[0]!.equals(second[0]!)).toBe(false);
  });

  it('uses an independent polynomial per byte: equal secret bytes give unequal share bytes', () => {
    const secret = Buffer.alloc(64, 0x41);
    const [share] = splitSecret(secret, 3, 2);
    expect(new Set(share!.subarray(1)).size).toBeGreaterThan(1);
  });

  it('numbers shares 1..n and makes each one byte longer than the secret', () => {
    const shares = splitSecret(randomBytes(32), 5, 3);
    expect(shares.map((share) => share[0])).toEqual([1, 2, 3, 4, 5]);
    for (const share of shares) expect(share).toHaveLength(33);
  });

  it.each([
    [0, 1, 'shares must be an integer from 1 to 255'],
    [256, 3, 'shares must be an integer from 1 to 255'],
    [3, 4, 'threshold must be an integer from 1 to the number of shares'],
    [3, 0, 'threshold must be an integer from 1 to the number of shares'],
  ])('refuses %i shares with threshold %i', (n, t, message) => {
    expect(() => splitSecret(randomBytes(8), n, t)).toThrow(message);
  });

  it('refuses the same share given twice', () => {
    const shares = splitSecret(randomBytes(8), 3, 2);
    expect(() => combineShares([shares[0]!, shares[0]!])).toThrow('the same share was given twice');
  });
});
