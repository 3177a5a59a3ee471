import type { Kysely } from 'kysely';
import type { DataPlaneSchema, EmailTokenPurpose } from '../data-plane/schema.js';
import type { AccountsDeps } from './deps.js';
import { newOpaqueToken, tokenHash } from './opaque-tokens.js';

const LIFETIME_MS: Readonly<Record<EmailTokenPurpose, number>> = {
  verify_email: 24 * 60 * 60 * 1000,
  reset_password: 60 * 60 * 1000,
};

const PREFIX: Readonly<Record<EmailTokenPurpose, string>> = {
  verify_email: 'cpev_',
  reset_password: 'cppr_',
};

/**
 * Issues a single-use token for an e-mail link (verification: 24 hours, reset: one hour). A new
 * reset token voids the user's earlier ones, so only the latest e-mail works.
 */
export async function issueEmailToken(
  deps: AccountsDeps,
  userId: string,
  purpose: EmailTokenPurpose,
): Promise<string> {
  const now = deps.now();
  const token = newOpaqueToken(PREFIX[purpose]);
  await deps.database.kysely.transaction().execute(async (trx) => {
    if (purpose === 'reset_password') await voidEmailTokens(trx, userId, purpose, now);
    await trx
      .insertInto('email_tokens')
      .values({
        token_hash: tokenHash(token),
        user_id: userId,
        purpose,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + LIFETIME_MS[purpose]).toISOString(),
        used_at: null,
      })
      .execute();
  });
  return token;
}

/** Marks the user's unused tokens of `purpose` used, so none of them works any more. */
export async function voidEmailTokens(
  db: Kysely<DataPlaneSchema>,
  userId: string,
  purpose: EmailTokenPurpose,
  now: Date,
): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/**
 * Spends a token: answers its user when the token exists, has this purpose, is unused and has not
 * expired, and marks it used in the same statement, so two requests cannot both spend it.
 */
export async function consumeEmailToken(
  db: Kysely<DataPlaneSchema>,
  token: string,
  purpose: EmailTokenPurpose,
  now: Date,
): Promise<string | undefined> {
  const spent = await db
    .updateTable('email_tokens')
    .set({ used_at: now.toISOString() })
    .where('token_hash', '=', tokenHash(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .returning('user_id')
    .executeTakeFirst();
  return spent?.user_id;
}
