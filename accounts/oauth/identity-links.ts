import { AccountError } from '../account-error.js';
import type { AccountsDeps } from '../deps.js';
import { revokeSessions } from '../sessions.js';
import { createUser, findUserByEmail, findUserById, markEmailVerified, type UserRecord } from '../users.js';
import type { OAuthProviderName, ProviderProfile } from './provider.js';

/** A provider profile with the verified address a login needs. */
export type VerifiedProfile = ProviderProfile & { verifiedEmail: string };

export interface LinkedUser {
  user: UserRecord;
  /** How the provider account was matched to the user. */
  via: 'link' | 'email' | 'new_account';
}

function defaultName(profile: VerifiedProfile): string {
  return profile.name ?? profile.verifiedEmail.slice(0, profile.verifiedEmail.indexOf('@'));
}

/**
 * An account someone registered with this address but never verified: whoever holds the password
 * has not shown they own the mailbox, and the provider just showed the person signing in does. The
 * password and every session of the account go, so a squatter who registered first cannot share it.
 */
async function takeOverUnverified(deps: AccountsDeps, user: UserRecord): Promise<void> {
  const now = deps.now();
  await deps.database.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: null, email_verified: 1, updated_at: now.toISOString() })
      .where('id', '=', user.id)
      .execute();
    await revokeSessions(deps, user.id, { reason: 'oauth login proved the e-mail address' }, trx);
  });
  deps.logger.warn(
    { userId: user.id, securityEvent: 'unverified_account_claimed' },
    'an OAuth login proved the e-mail of an unverified account; its password and sessions were removed',
  );
}

async function createOrFindUser(deps: AccountsDeps, profile: VerifiedProfile): Promise<UserRecord> {
  try {
    return await createUser(
      deps.database,
      {
        email: profile.verifiedEmail,
        name: defaultName(profile),
        passwordHash: null,
        emailVerified: true,
        avatarUrl: profile.avatarUrl ?? null,
      },
      deps.now(),
    );
  } catch (error) {
    // A concurrent login with the same address created the account first.
    const existing =
      error instanceof AccountError && error.code === 'email_taken'
        ? await findUserByEmail(deps.database, profile.verifiedEmail)
        : undefined;
    if (!existing) throw error;
    return existing;
  }
}

async function userByLink(
  deps: AccountsDeps,
  provider: OAuthProviderName,
  profile: VerifiedProfile,
): Promise<UserRecord | undefined> {
  const db = deps.database.kysely;
  const link = await db
    .selectFrom('oauth_identities')
    .select(['user_id', 'email'])
    .where('provider', '=', provider)
    .where('subject', '=', profile.subject)
    .executeTakeFirst();
  if (!link) return undefined;
  if (link.email !== profile.verifiedEmail) {
    await db
      .updateTable('oauth_identities')
      .set({ email: profile.verifiedEmail })
      .where('provider', '=', provider)
      .where('subject', '=', profile.subject)
      .execute();
  }
  return findUserById(deps.database, link.user_id);
}

/**
 * The user a provider login signs in as. A provider account linked before signs in as its user;
 * otherwise accounts are matched by the verified e-mail address, and a new account (without a
 * password, its address verified) is made when none has it. The link is remembered either way.
 */
export async function userForProviderLogin(
  deps: AccountsDeps,
  provider: OAuthProviderName,
  profile: VerifiedProfile,
): Promise<LinkedUser> {
  const linked = await userByLink(deps, provider, profile);
  if (linked) {
    if (linked.email === profile.verifiedEmail && !linked.email_verified) {
      await markEmailVerified(deps.database, linked.id, deps.now());
    }
    return { user: linked, via: 'link' };
  }

  const existing = await findUserByEmail(deps.database, profile.verifiedEmail);
  if (existing && !existing.email_verified) await takeOverUnverified(deps, existing);
  const user = existing ?? (await createOrFindUser(deps, profile));
  await deps.database.kysely
    .insertInto('oauth_identities')
    .values({
      provider,
      subject: profile.subject,
      user_id: user.id,
      email: profile.verifiedEmail,
      created_at: deps.now().toISOString(),
    })
    .onConflict((conflict) => conflict.columns(['provider', 'subject']).doNothing())
    .execute();
  return { user, via: existing ? 'email' : 'new_account' };
}
