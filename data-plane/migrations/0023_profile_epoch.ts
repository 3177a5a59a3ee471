import type { Kysely } from 'kysely';
import { createEpochTrigger } from './0022_credential_epoch.js';

/**
 * The credential epoch (migration 0022) also moves with every change a user's profile shows: the
 * user's e-mail, name, avatar, verification and two-factor flags, and an organization's name
 * (memberships and the current organization move it already). A replica may then keep profiles
 * read at an epoch for as long as the epoch stays, on PostgreSQL too, where no commit mark tells
 * it that another replica committed. Profile changes are rare; dropping the resolved credentials
 * with them costs one resolution each.
 */
const WATCHED: readonly { table: string; columns: string }[] = [
  { table: 'users', columns: 'email, name, avatar_url, email_verified, two_factor_enabled' },
  { table: 'organizations', columns: 'name' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, columns } of WATCHED) {
    await createEpochTrigger(
      db,
      `${table}_profile_update_moves_credential_epoch`,
      `after update of ${columns} on ${table}`,
    );
  }
}
