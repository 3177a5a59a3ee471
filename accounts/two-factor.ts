import type { Selectable } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { conflicting, invalidInput, type AccountError } from './account-error.js';
import type { UsersTable } from '../data-plane/schema.js';
import { open, seal } from '../security/sealed-box.js';
import { replaceBackupCodes, spendBackupCode } from './backup-codes.js';
import type { AccountsDeps } from './deps.js';
import { assertLoginAllowed, recordLoginFailure } from './login-throttle.js';
import { voidTwoFactorChallenges } from './two-factor-challenges.js';

const ISSUER = 'cloudplane';
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Codes of the previous and next period are accepted too, for clocks that drift a little. */
const WINDOW = 1;
const SECRET_BYTES = 20;

export interface TwoFactorSetup {
  secret: string;
  qr_code_url: string;
  backup_codes: string[];
}

type UserRow = Selectable<UsersTable>;

function sealingContext(userId: string): string {
  return `totp:${userId}`;
}

function totpFor(email: string, secret: Secret): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret,
  });
}

function twoFactorConflict(code: string, message: string): AccountError {
  return conflicting(code, message);
}

function invalidCode(): AccountError {
  return invalidInput('the code is not valid', { code: 'invalid_code' });
}

/**
 * Issues a new TOTP secret (sealed at rest, bound to the user), its QR code and ten backup codes.
 * Two-factor stays off until `confirmTwoFactor` sees a code from the new secret; asking again
 * before that replaces the secret and the codes.
 */
export async function beginTwoFactorSetup(deps: AccountsDeps, user: UserRow): Promise<TwoFactorSetup> {
  if (user.two_factor_enabled === 1) {
    throw twoFactorConflict('two_factor_already_enabled', 'two-factor authentication is already enabled');
  }
  const secret = new Secret({ size: SECRET_BYTES });
  const sealed = seal(deps.keys.totpSecret, Buffer.from(secret.bytes), sealingContext(user.id));
  // Loaded when someone first enables two-factor, not at every start-up.
  const { default: QRCode } = await import('qrcode');
  const qrCodeUrl = await QRCode.toDataURL(totpFor(user.email, secret).toString());
  const backupCodes = await deps.database.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ totp_secret: sealed, totp_last_step: null, updated_at: deps.now().toISOString() })
      .where('id', '=', user.id)
      .execute();
    return replaceBackupCodes(deps, trx, user.id);
  });
  return { secret: secret.base32, qr_code_url: qrCodeUrl, backup_codes: backupCodes };
}

/**
 * Accepts a TOTP code at most once: the time step it belongs to is recorded, and a code of that
 * step or an earlier one is refused from then on, even within the validity window.
 */
async function acceptTotp(deps: AccountsDeps, user: UserRow, code: string): Promise<boolean> {
  if (user.totp_secret === null || !/^\d{6}$/.test(code)) return false;
  const secret = new Secret({
    buffer: new Uint8Array(open(deps.keys.totpSecret, user.totp_secret, sealingContext(user.id))).buffer,
  });
  const totp = totpFor(user.email, secret);
  const timestamp = deps.now().getTime();
  const delta = totp.validate({ token: code, timestamp, window: WINDOW });
  if (delta === null) return false;
  const step = totp.counter({ timestamp }) + delta;
  const accepted = await deps.database.kysely
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', user.id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(accepted.numUpdatedRows) === 1;
}

function compact(code: string): string {
  return code.replace(/\s/g, '');
}

/**
 * Checks a second-factor code of a user with two-factor on: a six-digit TOTP code, or one of the
 * backup codes (each works once).
 */
export async function acceptSecondFactor(deps: AccountsDeps, user: UserRow, code: string): Promise<boolean> {
  const entered = compact(code);
  if (/^\d+$/.test(entered)) return acceptTotp(deps, user, entered);
  return spendBackupCode(deps, user.id, entered);
}

/**
 * Checks a code on behalf of a signed-in user (confirm, disable). A wrong code counts as a failed
 * login, so a stolen access token cannot be used to guess codes: 400 `invalid_code`, then 429.
 */
async function requireCode(
  deps: AccountsDeps,
  user: UserRow,
  ipAddress: string,
  check: () => Promise<boolean>,
): Promise<void> {
  const attempt = { email: user.email, ipAddress, userId: user.id };
  await assertLoginAllowed(deps, attempt);
  if (await check()) return;
  await recordLoginFailure(deps, attempt);
  throw invalidCode();
}

/** Turns two-factor on once a code from the pending secret proves the authenticator app has it. */
export async function confirmTwoFactor(
  deps: AccountsDeps,
  user: UserRow,
  code: string,
  ipAddress: string,
): Promise<void> {
  if (user.two_factor_enabled === 1) {
    throw twoFactorConflict('two_factor_already_enabled', 'two-factor authentication is already enabled');
  }
  if (user.totp_secret === null) {
    throw twoFactorConflict(
      'two_factor_not_pending',
      'two-factor setup has not been started; call 2fa/enable first',
    );
  }
  await requireCode(deps, user, ipAddress, () => acceptTotp(deps, user, compact(code)));
  await deps.database.kysely
    .updateTable('users')
    .set({ two_factor_enabled: 1, updated_at: deps.now().toISOString() })
    .where('id', '=', user.id)
    .execute();
  deps.logger.info({ userId: user.id }, 'two-factor authentication enabled');
}

/** Turns two-factor off after a valid TOTP or backup code; the secret and the codes are deleted. */
export async function disableTwoFactor(
  deps: AccountsDeps,
  user: UserRow,
  code: string,
  ipAddress: string,
): Promise<void> {
  if (user.two_factor_enabled !== 1) {
    throw twoFactorConflict('two_factor_not_enabled', 'two-factor authentication is not enabled');
  }
  await requireCode(deps, user, ipAddress, () => acceptSecondFactor(deps, user, code));
  const now = deps.now();
  await deps.database.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ two_factor_enabled: 0, totp_secret: null, totp_last_step: null, updated_at: now.toISOString() })
      .where('id', '=', user.id)
      .execute();
    await trx.deleteFrom('backup_codes').where('user_id', '=', user.id).execute();
    await voidTwoFactorChallenges(trx, user.id, now);
  });
  deps.logger.info({ userId: user.id }, 'two-factor authentication disabled');
}
