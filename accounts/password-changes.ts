import { invalidInput } from './account-error.js';
import { passwordResetMail, sendAccountMail } from './account-mail.js';
import type { AccountsDeps } from './deps.js';
import { consumeEmailToken, issueEmailToken, voidEmailTokens } from './email-tokens.js';
import { assertLoginAllowed, liftAccountLockout, recordLoginFailure } from './login-throttle.js';
import type { ClientInfo } from './login.js';
import type { Mailer } from './mailer.js';
import { checkPasswordPolicy, hashPassword, verifyPassword } from './passwords.js';
import { revokeSessions } from './sessions.js';
import { findUserRow } from './users.js';

export const RESET_REQUESTED_MESSAGE =
  'If an account exists for that e-mail address, a link to reset its password has been sent.';

/**
 * Changes the caller's password after checking the current one, and ends every other session.
 * A wrong current password counts as a failed login, so a stolen access token cannot be used to
 * guess it.
 */
export async function changePassword(
  deps: AccountsDeps,
  session: { userId: string; sessionId: string },
  input: { current_password: string; new_password: string },
  client: ClientInfo,
): Promise<void> {
  checkPasswordPolicy(input.new_password, 'new_password');
  const user = await findUserRow(deps.database.kysely, { id: session.userId });
  if (!user) throw new Error(`no user ${session.userId}`);
  if (user.password_hash === null) {
    throw invalidInput('this account has no password yet; set one through forgot-password', {
      code: 'no_password',
    });
  }
  const attempt = { email: user.email, ipAddress: client.ipAddress, userId: user.id };
  await assertLoginAllowed(deps, attempt);
  if (!(await verifyPassword(input.current_password, user.password_hash))) {
    await recordLoginFailure(deps, attempt);
    throw invalidInput('current_password is wrong', { code: 'invalid_current_password' });
  }
  const passwordHash = await hashPassword(input.new_password, deps.passwordCost);
  const now = deps.now();
  await deps.database.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now.toISOString() })
      .where('id', '=', user.id)
      .execute();
    await voidEmailTokens(trx, user.id, 'reset_password', now);
    await revokeSessions(
      deps,
      user.id,
      { exceptSessionId: session.sessionId, reason: 'password changed' },
      trx,
    );
  });
  deps.logger.info({ userId: user.id }, 'password changed');
}

/**
 * Mails a reset link when the address has an account, and answers the same either way. The mail
 * leaves in the background so that sending it does not make known addresses answer slower.
 */
export async function requestPasswordReset(deps: AccountsDeps, mailer: Mailer, email: string): Promise<void> {
  const user = await findUserRow(deps.database.kysely, { email });
  if (!user) return;
  const token = await issueEmailToken(deps, user.id, 'reset_password');
  deps.logger.info({ userId: user.id }, 'password reset requested');
  void sendAccountMail(deps, mailer, passwordResetMail(deps.publicUrl.href, user.email, token));
}

/**
 * Sets a new password with a reset token. The token is single-use; every session ends; the
 * address counts as verified (the link reached it) and its lock-out is lifted.
 */
export async function resetPassword(
  deps: AccountsDeps,
  input: { token: string; password: string },
): Promise<void> {
  checkPasswordPolicy(input.password, 'password');
  const passwordHash = await hashPassword(input.password, deps.passwordCost);
  const now = deps.now();
  const userId = await deps.database.kysely.transaction().execute(async (trx) => {
    const owner = await consumeEmailToken(trx, input.token, 'reset_password', now);
    if (owner === undefined)
      throw invalidInput('the reset token is invalid, used or expired', { code: 'invalid_token' });
    const user = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, email_verified: 1, updated_at: now.toISOString() })
      .where('id', '=', owner)
      .returning('email')
      .executeTakeFirstOrThrow();
    await voidEmailTokens(trx, owner, 'reset_password', now);
    await revokeSessions(deps, owner, { reason: 'password reset' }, trx);
    await liftAccountLockout(trx, user.email);
    return owner;
  });
  deps.logger.info({ userId }, 'password reset');
}
