import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import type { AccountsDeps } from './deps.js';
import { newOpaqueToken, tokenHash } from './opaque-tokens.js';

/** How long a login may wait for its second factor. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

/**
 * Starts the second step of a login whose password was right: the `session_token` returned with
 * 403 `2fa_required`. Stored hashed; valid five minutes; spent by the first successful verify.
 */
export async function createTwoFactorChallenge(deps: AccountsDeps, userId: string): Promise<string> {
  const now = deps.now();
  const token = newOpaqueToken('cp2fa_');
  await deps.database.kysely
    .insertInto('two_factor_challenges')
    .values({
      token_hash: tokenHash(token),
      user_id: userId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CHALLENGE_LIFETIME_MS).toISOString(),
      used_at: null,
    })
    .execute();
  return token;
}

/** The user a pending challenge belongs to; undefined when unknown, spent, voided or expired. */
export async function pendingChallengeUser(deps: AccountsDeps, token: string): Promise<string | undefined> {
  const row = await deps.database.kysely
    .selectFrom('two_factor_challenges')
    .select('user_id')
    .where('token_hash', '=', tokenHash(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', deps.now().toISOString())
    .executeTakeFirst();
  return row?.user_id;
}

/** Spends a pending challenge; false when another request spent it first or it ended meanwhile. */
export async function spendChallenge(deps: AccountsDeps, token: string): Promise<boolean> {
  const now = deps.now().toISOString();
  const result = await deps.database.kysely
    .updateTable('two_factor_challenges')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Voids every pending challenge of a user (lock-out, two-factor turned off). */
export async function voidTwoFactorChallenges(
  db: Kysely<DataPlaneSchema>,
  userId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('two_factor_challenges')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}
