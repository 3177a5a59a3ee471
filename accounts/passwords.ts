import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { invalidInput } from './account-error.js';

/** scrypt's cost parameters: `N` (a power of two), block size `r`, parallelism `p`. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's recommendation for scrypt (about 128 MiB and a few hundred milliseconds per hash). */
export const OWASP_SCRYPT_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 64;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses more than 32 MiB unless told otherwise.
  const options: ScryptOptions = { ...cost, maxmem: 2 * 128 * cost.N * cost.r * cost.p };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Hashes a password into `scrypt$N$r$p$<salt>$<hash>` (base64 salt and hash). The string carries
 * its own cost, so raising the cost later leaves existing hashes verifiable (see `needsRehash`).
 */
export async function hashPassword(password: string, cost: ScryptCost = OWASP_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  cost: ScryptCost;
  salt: Buffer;
  key: Buffer;
}

function parse(encoded: string): ParsedHash | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = encoded.split('$');
  if (scheme !== 'scrypt' || rest.length > 0 || salt === undefined || key === undefined) return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every((value) => Number.isSafeInteger(value) && value > 0)) return undefined;
  return { cost, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/** Whether the password matches; a hash this module cannot read never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed || parsed.key.length !== KEY_BYTES) return false;
  const key = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(key, parsed.key);
}

/** Whether a hash was made at another cost than `cost` and should be replaced at the next login. */
export function needsRehash(encoded: string, cost: ScryptCost = OWASP_SCRYPT_COST): boolean {
  const parsed = parse(encoded);
  return !parsed || parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p;
}

/**
 * Refuses a password outside the length policy, counted in Unicode code points after NFKC
 * normalisation (what is hashed), so long passphrases in any script are welcome.
 */
export function checkPasswordPolicy(password: string, field: string): void {
  const length = [...password.normalize('NFKC')].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw invalidInput(
      `${field} must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long, got ${length}`,
      {
        details: { fields: [{ in: 'body', field, rule: 'length', message: `${field} length is ${length}` }] },
      },
    );
  }
}

/**
 * Verifies against a real hash of a random password, so a login for an unknown e-mail costs what a
 * login with a wrong password costs and the answer time reveals nothing.
 */
export class DecoyPassword {
  private hash: Promise<string> | undefined;

  constructor(private readonly cost: ScryptCost) {}

  async verify(password: string): Promise<false> {
    this.hash ??= hashPassword(randomBytes(16).toString('base64'), this.cost);
    await verifyPassword(password, await this.hash);
    return false;
  }
}
