import { invalidInput } from './account-error.js';
import { sendAccountMail, verificationMail } from './account-mail.js';
import type { AccountsDeps } from './deps.js';
import { consumeEmailToken, issueEmailToken } from './email-tokens.js';
import type { ClientInfo } from './login.js';
import { twoFactorRequired } from './login.js';
import type { Mailer } from './mailer.js';
import { checkPasswordPolicy, hashPassword } from './passwords.js';
import { startSession, type IssuedTokens } from './sessions.js';
import {
  createUser,
  emailTaken,
  findUserByEmail,
  findUserRow,
  markEmailVerified,
  type UserRecord,
} from './users.js';

/**
 * Creates an unverified account with its own organization and e-mails the verification link.
 * 409 `email_taken` when the address already has an account.
 */
export async function register(
  deps: AccountsDeps,
  mailer: Mailer,
  input: { email: string; password: string; name: string },
): Promise<UserRecord> {
  checkPasswordPolicy(input.password, 'password');
  const name = input.name.trim();
  if (await findUserByEmail(deps.database, input.email)) throw emailTaken();
  const passwordHash = await hashPassword(input.password, deps.passwordCost);
  const user = await createUser(
    deps.database,
    { email: input.email, name, passwordHash, emailVerified: false },
    deps.now(),
  );
  deps.logger.info({ userId: user.id }, 'account registered');
  const token = await issueEmailToken(deps, user.id, 'verify_email');
  await sendAccountMail(deps, mailer, verificationMail(deps.publicUrl.href, user.email, token));
  return user;
}

/** Verification mails one address may be sent per hour; beyond, requests are dropped silently. */
export const VERIFICATION_MAILS_PER_HOUR = 3;

/**
 * Sends a new verification link to an account whose address is not verified yet. Whatever the
 * address (unknown, verified, over its hourly budget) the caller learns nothing: the answer is
 * the same and the mail leaves after it.
 */
export async function resendVerification(deps: AccountsDeps, mailer: Mailer, email: string): Promise<void> {
  const user = await findUserRow(deps.database.kysely, { email });
  if (!user || user.email_verified) return;
  const hourAgo = new Date(deps.now().getTime() - 60 * 60 * 1000).toISOString();
  const { count } = await deps.database.kysely
    .selectFrom('email_tokens')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', user.id)
    .where('purpose', '=', 'verify_email')
    .where('created_at', '>', hourAgo)
    .executeTakeFirstOrThrow();
  if (Number(count) >= VERIFICATION_MAILS_PER_HOUR) {
    deps.logger.info({ userId: user.id }, 'verification mail not resent: hourly budget spent');
    return;
  }
  const token = await issueEmailToken(deps, user.id, 'verify_email');
  deps.logger.info({ userId: user.id }, 'verification mail resent');
  void sendAccountMail(deps, mailer, verificationMail(deps.publicUrl.href, user.email, token));
}

/**
 * Spends a verification token, marks the address verified and signs the user in. With two-factor
 * on, the sign-in still needs the second factor: 403 `2fa_required`, as from login.
 */
export async function verifyEmail(
  deps: AccountsDeps,
  token: string,
  client: ClientInfo,
): Promise<IssuedTokens> {
  const now = deps.now();
  const userId = await consumeEmailToken(deps.database.kysely, token, 'verify_email', now);
  if (userId === undefined) {
    throw invalidInput('the verification token is invalid, used or expired', { code: 'invalid_token' });
  }
  await markEmailVerified(deps.database, userId, now);
  deps.logger.info({ userId }, 'e-mail address verified');
  const user = await findUserRow(deps.database.kysely, { id: userId });
  if (user?.two_factor_enabled === 1) throw await twoFactorRequired(deps, userId);
  return startSession(deps, { ...client, userId });
}
