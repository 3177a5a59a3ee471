import type { Kysely } from 'kysely';
import { throttled, type AccountError } from './account-error.js';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import type { AccountsDeps } from './deps.js';
import { randomBase32 } from './ids.js';
import { voidTwoFactorChallenges } from './two-factor-challenges.js';
import { normalizeEmail } from './users.js';

/**
 * Who a login attempt counts against: the e-mail address tried (known or not, so probing for
 * accounts looks like guessing passwords) and the client address.
 */
export interface LoginAttempt {
  email: string;
  ipAddress: string;
  /** The account behind the e-mail, when there is one. */
  userId?: string;
}

interface Subject {
  key: string;
  limit: number;
}

function subjects(deps: AccountsDeps, attempt: LoginAttempt): [Subject, Subject] {
  const { loginMaxFailures, loginMaxFailuresPerAddress } = deps.config;
  return [
    { key: `account:${normalizeEmail(attempt.email)}`, limit: loginMaxFailures },
    { key: `address:${attempt.ipAddress}`, limit: loginMaxFailuresPerAddress },
  ];
}

function lockedOut(retryAfterSeconds: number): AccountError {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return throttled(
    retryAfterSeconds,
    `too many failed login attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
  );
}

/**
 * Throws 429 `rate_limited` (with `retry_after` and `Retry-After`) while the account or the client
 * address is locked out, whatever the credentials: a correct password does not lift a lock-out.
 */
export async function assertLoginAllowed(deps: AccountsDeps, attempt: LoginAttempt): Promise<void> {
  const now = deps.now();
  const lock = await deps.database.kysely
    .selectFrom('login_lockouts')
    .select('locked_until')
    .where(
      'subject',
      'in',
      subjects(deps, attempt).map((subject) => subject.key),
    )
    .where('locked_until', '>', now.toISOString())
    .orderBy('locked_until', 'desc')
    .executeTakeFirst();
  if (lock) throw lockedOut(Math.ceil((Date.parse(lock.locked_until) - now.getTime()) / 1000));
}

async function countAndLock(
  trx: Kysely<DataPlaneSchema>,
  subject: Subject,
  now: Date,
  windowMs: number,
): Promise<boolean> {
  const windowStart = new Date(now.getTime() - windowMs).toISOString();
  await trx
    .deleteFrom('login_failures')
    .where('subject', '=', subject.key)
    .where('occurred_at', '<=', windowStart)
    .execute();
  await trx
    .insertInto('login_failures')
    .values({ id: randomBase32(24), subject: subject.key, occurred_at: now.toISOString() })
    .execute();
  const { failures } = await trx
    .selectFrom('login_failures')
    .select((eb) => eb.fn.countAll().as('failures'))
    .where('subject', '=', subject.key)
    .executeTakeFirstOrThrow();
  if (Number(failures) < subject.limit) return false;
  const lockedUntil = new Date(now.getTime() + windowMs).toISOString();
  await trx
    .insertInto('login_lockouts')
    .values({ subject: subject.key, locked_until: lockedUntil })
    .onConflict((conflict) => conflict.column('subject').doUpdateSet({ locked_until: lockedUntil }))
    .execute();
  // The lock-out starts a fresh count: once it ends, the subject has its full allowance again.
  await trx.deleteFrom('login_failures').where('subject', '=', subject.key).execute();
  return true;
}

/**
 * Counts a failed login (a wrong password, or a wrong second-factor code) against the account
 * and the address, in the database so every replica sees the same counts. Reaching a limit
 * within the window locks the subject for the window's length; an account lock-out also voids
 * the account's pending two-factor challenges.
 */
export async function recordLoginFailure(deps: AccountsDeps, attempt: LoginAttempt): Promise<void> {
  const now = deps.now();
  const windowMs = deps.config.loginLockoutSeconds * 1000;
  const [account, address] = subjects(deps, attempt);
  const locked = await deps.database.kysely.transaction().execute(async (trx) => {
    const accountLocked = await countAndLock(trx, account, now, windowMs);
    const addressLocked = await countAndLock(trx, address, now, windowMs);
    if (accountLocked && attempt.userId !== undefined)
      await voidTwoFactorChallenges(trx, attempt.userId, now);
    return { accountLocked, addressLocked };
  });
  const lockoutSeconds = deps.config.loginLockoutSeconds;
  if (locked.accountLocked) {
    deps.logger.warn(
      {
        userId: attempt.userId ?? null,
        knownAccount: attempt.userId !== undefined,
        lockoutSeconds,
        securityEvent: 'login_lockout',
      },
      'account locked out after repeated failed logins',
    );
  }
  if (locked.addressLocked) {
    deps.logger.warn(
      { ipAddress: attempt.ipAddress, lockoutSeconds, securityEvent: 'login_lockout' },
      'client address locked out after repeated failed logins',
    );
  }
}

/** A successful sign-in forgets the account's failures (the address keeps its count). */
export async function clearAccountFailures(deps: AccountsDeps, email: string): Promise<void> {
  await deps.database.kysely
    .deleteFrom('login_failures')
    .where('subject', '=', `account:${normalizeEmail(email)}`)
    .execute();
}

/** A password reset proves control of the mailbox: it lifts the account's lock-out too. */
export async function liftAccountLockout(db: Kysely<DataPlaneSchema>, email: string): Promise<void> {
  const key = `account:${normalizeEmail(email)}`;
  await db.deleteFrom('login_failures').where('subject', '=', key).execute();
  await db.deleteFrom('login_lockouts').where('subject', '=', key).execute();
}
