import type { Kysely } from 'kysely';
import { notFound, unauthenticated } from './account-error.js';
import type { DataPlaneSchema, OrganizationRole } from '../data-plane/schema.js';
import { signAccessToken } from './access-tokens.js';
import { describeLocation } from './client-location.js';
import type { AccountsDeps } from './deps.js';
import { describeDevice } from './device-description.js';
import { newId } from './ids.js';
import { newOpaqueToken, tokenHash } from './opaque-tokens.js';

/** Refresh tokens start with this, so a leaked one is recognisable. */
export const REFRESH_TOKEN_PREFIX = 'cprt_';

/** `last_active` moves at most this often, so an active session costs no write per request. */
const LAST_ACTIVE_RESOLUTION_MS = 60_000;

/** What a successful sign-in hands the client. */
export interface IssuedTokens {
  token: string;
  expires_at: string;
  refresh_token: string;
  session_id: string;
}

export interface SessionStart {
  userId: string;
  userAgent: string | undefined;
  ipAddress: string;
}

/** A session as its owner sees it in the session list. */
export interface SessionView {
  id: string;
  device: string;
  ip_address: string;
  location: string;
  current: boolean;
  last_active: string;
  created_at: string;
}

/** A live session with what the authenticator needs about its user's current organization. */
export interface LiveSession {
  sessionId: string;
  userId: string;
  lastActive: string;
  expiresAt: string;
  organizationId: string | undefined;
  /** The user's role in the current organization; undefined when they are no longer a member. */
  role: OrganizationRole | undefined;
}

function invalidRefreshToken(message = 'the refresh token is invalid or expired') {
  return unauthenticated(message, { code: 'invalid_token' });
}

async function issueRefreshToken(
  db: Kysely<DataPlaneSchema>,
  deps: AccountsDeps,
  sessionId: string,
  now: Date,
): Promise<{ token: string; expiresAt: string }> {
  const token = newOpaqueToken(REFRESH_TOKEN_PREFIX);
  const expiresAt = new Date(now.getTime() + deps.config.refreshTokenTtlSeconds * 1000).toISOString();
  await db
    .insertInto('refresh_tokens')
    .values({
      token_hash: tokenHash(token),
      session_id: sessionId,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      spent_at: null,
    })
    .execute();
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', sessionId).execute();
  return { token, expiresAt };
}

async function currentOrganizationOf(
  db: Kysely<DataPlaneSchema>,
  userId: string,
): Promise<string | undefined> {
  const user = await db
    .selectFrom('users')
    .select('current_organization_id')
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user) throw new Error(`no user ${userId}`);
  return user.current_organization_id ?? undefined;
}

/**
 * Signs a user in on a new session: records the device, address and a best-effort location, and
 * issues an access token with the first refresh token of the session's family.
 */
export async function startSession(deps: AccountsDeps, input: SessionStart): Promise<IssuedTokens> {
  const db = deps.database.kysely;
  const now = deps.now();
  const organizationId = await currentOrganizationOf(db, input.userId);
  const sessionId = newId('sess');
  const refresh = await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sessions')
      .values({
        id: sessionId,
        user_id: input.userId,
        device: describeDevice(input.userAgent),
        ip_address: input.ipAddress,
        location: describeLocation(input.ipAddress),
        created_at: now.toISOString(),
        last_active: now.toISOString(),
        expires_at: now.toISOString(),
        revoked_at: null,
      })
      .execute();
    return issueRefreshToken(trx, deps, sessionId, now);
  });
  const access = await signAccessToken(deps, { userId: input.userId, sessionId, organizationId });
  deps.logger.info({ userId: input.userId, sessionId }, 'session started');
  return {
    token: access.token,
    expires_at: access.expiresAt.toISOString(),
    refresh_token: refresh.token,
    session_id: sessionId,
  };
}

/** Ends a session and spends every refresh token of its family. */
async function revokeFamily(db: Kysely<DataPlaneSchema>, sessionId: string, now: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('refresh_tokens')
    .set({ spent_at: now })
    .where('session_id', '=', sessionId)
    .where('spent_at', 'is', null)
    .execute();
}

/**
 * Exchanges a refresh token for a new access token and the next refresh token of the family; the
 * presented one is spent. Presenting a spent token means it was copied: the whole family and its
 * session are revoked, so whoever holds the newer token is signed out too.
 */
export async function refreshSession(deps: AccountsDeps, refreshToken: string): Promise<IssuedTokens> {
  const db = deps.database.kysely;
  const now = deps.now();
  const hash = tokenHash(refreshToken);
  const found = await db
    .selectFrom('refresh_tokens as t')
    .innerJoin('sessions as s', 's.id', 't.session_id')
    .select(['t.session_id', 't.expires_at', 't.spent_at', 's.user_id', 's.revoked_at'])
    .where('t.token_hash', '=', hash)
    .executeTakeFirst();
  if (!found) throw invalidRefreshToken();
  const reuse = async () => {
    await revokeFamily(db, found.session_id, now.toISOString());
    deps.logger.warn(
      { userId: found.user_id, sessionId: found.session_id, securityEvent: 'refresh_token_reuse' },
      'a spent refresh token was presented again; its session and token family are revoked',
    );
    return invalidRefreshToken('the refresh token was already used; the session has been ended');
  };
  if (found.spent_at !== null) throw await reuse();
  if (found.revoked_at !== null || found.expires_at <= now.toISOString()) throw invalidRefreshToken();

  const refresh = await db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable('refresh_tokens')
      .set({ spent_at: now.toISOString() })
      .where('token_hash', '=', hash)
      .where('spent_at', 'is', null)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) === 0) return undefined;
    await trx
      .updateTable('sessions')
      .set({ last_active: now.toISOString() })
      .where('id', '=', found.session_id)
      .execute();
    return issueRefreshToken(trx, deps, found.session_id, now);
  });
  // Another request spent it between our read and our write: the same token used twice.
  if (!refresh) throw await reuse();
  const organizationId = await currentOrganizationOf(db, found.user_id);
  const access = await signAccessToken(deps, {
    userId: found.user_id,
    sessionId: found.session_id,
    organizationId,
  });
  return {
    token: access.token,
    expires_at: access.expiresAt.toISOString(),
    refresh_token: refresh.token,
    session_id: found.session_id,
  };
}

/** The session if it is neither revoked nor expired, read by primary key with the user's current role. */
export async function findLiveSession(
  deps: AccountsDeps,
  sessionId: string,
): Promise<LiveSession | undefined> {
  const row = await deps.database.kysely
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('organization_members as m', (join) =>
      join.onRef('m.organization_id', '=', 'u.current_organization_id').onRef('m.user_id', '=', 'u.id'),
    )
    .select(['s.id', 's.user_id', 's.last_active', 's.expires_at', 'u.current_organization_id', 'm.role'])
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', deps.now().toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    sessionId: row.id,
    userId: row.user_id,
    lastActive: row.last_active,
    expiresAt: row.expires_at,
    organizationId: row.current_organization_id ?? undefined,
    role: row.role ?? undefined,
  };
}

/** Records activity, at most once a minute per session; `session.lastActive` follows. */
export async function touchSession(deps: AccountsDeps, session: LiveSession): Promise<void> {
  const now = deps.now();
  if (now.getTime() - Date.parse(session.lastActive) < LAST_ACTIVE_RESOLUTION_MS) return;
  session.lastActive = now.toISOString();
  await deps.database.kysely
    .updateTable('sessions')
    .set({ last_active: session.lastActive })
    .where('id', '=', session.sessionId)
    .execute();
}

/** The user's live sessions, most recently active first; `current` marks the caller's. */
export async function listSessions(
  deps: AccountsDeps,
  userId: string,
  currentSessionId: string,
): Promise<SessionView[]> {
  const rows = await deps.database.kysely
    .selectFrom('sessions')
    .select(['id', 'device', 'ip_address', 'location', 'last_active', 'created_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', deps.now().toISOString())
    .orderBy('last_active', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    device: row.device,
    ip_address: row.ip_address,
    location: row.location,
    current: row.id === currentSessionId,
    last_active: row.last_active,
    created_at: row.created_at,
  }));
}

/** Revokes one of the user's sessions; 404 when it is not theirs or already ended. */
export async function revokeSession(deps: AccountsDeps, userId: string, sessionId: string): Promise<void> {
  const now = deps.now().toISOString();
  const live = await deps.database.kysely
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!live) throw notFound(`session ${sessionId} not found`);
  await deps.database.kysely.transaction().execute((trx) => revokeFamily(trx, sessionId, now));
  deps.logger.info({ userId, sessionId }, 'session revoked');
}

/**
 * Revokes the user's sessions, all of them or all but `exceptSessionId`. Runs in the caller's
 * transaction when given one.
 */
export async function revokeSessions(
  deps: AccountsDeps,
  userId: string,
  options: { exceptSessionId?: string; reason: string },
  db: Kysely<DataPlaneSchema> = deps.database.kysely,
): Promise<void> {
  const now = deps.now().toISOString();
  let sessions = db
    .selectFrom('sessions')
    .select('id')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (options.exceptSessionId !== undefined) sessions = sessions.where('id', '!=', options.exceptSessionId);
  const ids = (await sessions.execute()).map((row) => row.id);
  for (const id of ids) await revokeFamily(db, id, now);
  if (ids.length > 0)
    deps.logger.info({ userId, sessions: ids.length, reason: options.reason }, 'sessions revoked');
}
