import { notFound, refused } from './account-error.js';
import type { Principal } from './principal.js';
import { credentialEpochRead } from './credential-cache.js';
import type { AccountsDeps } from './deps.js';
import { listMemberships, membershipOf } from './organizations.js';
import { findUserById } from './users.js';

/** The spec's User resource. */
export interface UserView {
  id: string;
  email: string;
  name: string;
  avatar_url: string | null;
  email_verified: boolean;
  two_factor_enabled: boolean;
  organizations: { id: string; name: string; role: string }[];
  current_organization_id: string | null;
  created_at: string;
}

/** What `GET /v1/auth/me` answers: the user, and for an API key the key the call came with. */
export interface CallerView extends UserView {
  api_key?: { id: string; organization_id: string; scopes: string[] };
}

/**
 * The user behind the caller's credential. Called with an API key, the key's creator (as a token
 * answers GitHub's `GET /user`), with the key itself: what it may do is its scopes, not the user's.
 */
export async function callerOf(deps: AccountsDeps, principal: Principal): Promise<CallerView> {
  if (principal.userId === undefined) throw refused('this credential belongs to no user');
  const profile = await profileOf(deps, principal.userId);
  if (principal.kind !== 'api_key') return profile;
  return {
    ...profile,
    api_key: {
      id: principal.id,
      organization_id: principal.organizationId ?? '',
      scopes: [...principal.scopes],
    },
  };
}

export interface ProfileChange {
  name?: string;
  avatar_url?: string | null;
  current_organization_id?: string;
}

export async function profileOf(deps: AccountsDeps, userId: string): Promise<UserView> {
  // Taken before the reads: a commit while they run moves it, and the answer is never kept.
  // Without a commit mark (PostgreSQL), the credential epoch, which every change a profile shows
  // moves and the request's authentication has just read (or a later one).
  const mark = deps.database.commitMark() ?? credentialEpochRead(deps.database);
  const kept = mark === undefined ? undefined : keptProfiles(deps.database, mark).get(userId);
  if (kept) return { ...kept };
  const view = await readProfile(deps, userId);
  if (mark !== undefined) {
    const profiles = keptProfiles(deps.database, mark);
    if (profiles.size >= MAX_KEPT_PROFILES) profiles.delete(profiles.keys().next().value!);
    profiles.set(userId, view);
  }
  return { ...view };
}

/** The most profiles kept per data plane; past it the longest-kept go first. */
const MAX_KEPT_PROFILES = 10_000;

/** Profiles read while the data plane's commit mark stood at `mark`, per data plane. */
const profilesByDatabase = new WeakMap<
  AccountsDeps['database'],
  { mark: number | bigint; profiles: Map<string, UserView> }
>();

/**
 * The profiles read at the data plane's current commit mark: `GET /v1/auth/me` is asked far more
 * often than anything about a user changes, and while nothing was committed (SQLite's mark stays)
 * the two reads behind a profile would answer the same. On PostgreSQL the mark is the credential
 * epoch: every replica reads it on each authenticated request, so a profile changed through one
 * replica is read afresh by the next request on any other.
 */
function keptProfiles(database: AccountsDeps['database'], mark: number | bigint): Map<string, UserView> {
  let kept = profilesByDatabase.get(database);
  if (kept?.mark !== mark) {
    kept = { mark, profiles: new Map() };
    profilesByDatabase.set(database, kept);
  }
  return kept.profiles;
}

async function readProfile(deps: AccountsDeps, userId: string): Promise<UserView> {
  const user = await findUserById(deps.database, userId);
  if (!user) throw new Error(`no user ${userId}`);
  const memberships = await listMemberships(deps.database.kysely, userId);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    avatar_url: user.avatar_url,
    email_verified: user.email_verified,
    two_factor_enabled: user.two_factor_enabled,
    organizations: memberships.map(({ id, name, role }) => ({ id, name, role })),
    current_organization_id: user.current_organization_id,
    created_at: user.created_at,
  };
}

/**
 * Updates name and avatar, and switches the current organization. An organization the user does
 * not belong to is a 404, exactly like one that does not exist.
 */
export async function updateProfile(
  deps: AccountsDeps,
  userId: string,
  change: ProfileChange,
): Promise<Pick<UserView, 'id' | 'name' | 'avatar_url' | 'current_organization_id'>> {
  const db = deps.database.kysely;
  if (change.current_organization_id !== undefined) {
    const membership = await membershipOf(db, userId, change.current_organization_id);
    if (!membership) throw notFound(`organization ${change.current_organization_id} not found`);
  }
  const row = await db
    .updateTable('users')
    .set({
      ...(change.name !== undefined && { name: change.name.trim() }),
      ...(change.avatar_url !== undefined && { avatar_url: change.avatar_url }),
      ...(change.current_organization_id !== undefined && {
        current_organization_id: change.current_organization_id,
      }),
      updated_at: deps.now().toISOString(),
    })
    .where('id', '=', userId)
    .returning(['id', 'name', 'avatar_url', 'current_organization_id'])
    .executeTakeFirstOrThrow();
  return row;
}
