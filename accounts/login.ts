import { refused, unauthenticated, type AccountError } from './account-error.js';
import type { AccountsDeps } from './deps.js';
import { assertLoginAllowed, clearAccountFailures, recordLoginFailure } from './login-throttle.js';
import { hashPassword, needsRehash, verifyPassword } from './passwords.js';
import { startSession, type IssuedTokens, type SessionStart } from './sessions.js';
import { acceptSecondFactor } from './two-factor.js';
import { createTwoFactorChallenge, pendingChallengeUser, spendChallenge } from './two-factor-challenges.js';
import { findUserRow } from './users.js';

/** Where a sign-in comes from. */
export type ClientInfo = Omit<SessionStart, 'userId'>;

export interface LoginResult extends IssuedTokens {
  user: { id: string; email: string; name: string };
}

function invalidCredentials(): AccountError {
  return unauthenticated('the e-mail address or the password is wrong', { code: 'invalid_credentials' });
}

/** 403 `2fa_required` with the `session_token` that 2fa/verify takes. */
export async function twoFactorRequired(deps: AccountsDeps, userId: string): Promise<AccountError> {
  const sessionToken = await createTwoFactorChallenge(deps, userId);
  return refused(
    'two-factor authentication is required: send a code with this session_token to /v1/auth/2fa/verify',
    { code: '2fa_required', extra: { session_token: sessionToken } },
  );
}

/**
 * E-mail and password sign-in. Unknown e-mails cost the same scrypt work as known ones and get the
 * same 401; both count toward the lock-out of the address tried and of the client address. A
 * correct password for an account with two-factor on answers 403 `2fa_required` instead of tokens.
 */
export async function login(
  deps: AccountsDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<LoginResult> {
  const attempt = { email: input.email, ipAddress: client.ipAddress };
  await assertLoginAllowed(deps, attempt);
  const user = await findUserRow(deps.database.kysely, { email: input.email });
  const valid =
    user?.password_hash != null
      ? await verifyPassword(input.password, user.password_hash)
      : await deps.decoyPassword.verify(input.password);
  if (!user || !valid) {
    await recordLoginFailure(deps, { ...attempt, userId: user?.id });
    throw invalidCredentials();
  }
  await clearAccountFailures(deps, user.email);
  if (needsRehash(user.password_hash!, deps.passwordCost)) {
    const rehashed = await hashPassword(input.password, deps.passwordCost);
    await deps.database.kysely
      .updateTable('users')
      .set({ password_hash: rehashed })
      .where('id', '=', user.id)
      .execute();
    deps.logger.info({ userId: user.id }, 'password hash upgraded to the current cost');
  }
  if (user.two_factor_enabled === 1) throw await twoFactorRequired(deps, user.id);
  const tokens = await startSession(deps, { ...client, userId: user.id });
  return { ...tokens, user: { id: user.id, email: user.email, name: user.name } };
}

function invalidSessionToken(): AccountError {
  return unauthenticated('the session_token is invalid or expired; sign in again', {
    code: 'invalid_session_token',
  });
}

/**
 * The second step of a login: a pending challenge plus a TOTP or backup code. A wrong code counts
 * as a failed login; a challenge is spent by its first success and expires after five minutes.
 */
export async function completeTwoFactorLogin(
  deps: AccountsDeps,
  input: { code: string; session_token: string },
  client: ClientInfo,
): Promise<IssuedTokens> {
  const userId = await pendingChallengeUser(deps, input.session_token);
  const user = userId === undefined ? undefined : await findUserRow(deps.database.kysely, { id: userId });
  if (!user) throw invalidSessionToken();
  const attempt = { email: user.email, ipAddress: client.ipAddress, userId: user.id };
  await assertLoginAllowed(deps, attempt);
  if (!(await acceptSecondFactor(deps, user, input.code))) {
    await recordLoginFailure(deps, attempt);
    throw unauthenticated('the code is not valid', { code: 'invalid_code' });
  }
  if (!(await spendChallenge(deps, input.session_token))) throw invalidSessionToken();
  await clearAccountFailures(deps, user.email);
  return startSession(deps, { ...client, userId: user.id });
}
