/**
 * The members of an organization and their roles. Every change runs serialised per organization
 * (`serializedTransaction`), so two requests can never together leave it without an owner, and
 * is recorded in the organization's audit trail in the same transaction.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { DataPlaneSchema, OrganizationRole } from '../data-plane/schema.js';
import { LOCK_CLASSES, serializedTransaction } from '../data-plane/serialized-transaction.js';
import { conflicting, notFound, refused } from './account-error.js';
import { recordAudit } from './organization-audit.js';
import {
  createOrganization,
  listMemberships,
  membershipOf,
  personalOrganizationName,
  type Membership,
} from './organizations.js';
import { mayAssign, mayManageMembers } from './roles.js';

/** The first key of the advisory lock that serialises one organization's membership changes. */
const MEMBERSHIP_LOCK_CLASS = LOCK_CLASSES.membership;

export interface Member {
  user_id: string;
  email: string;
  name: string;
  role: OrganizationRole;
  joined_at: string;
}

/** Who acts: a member of the organization, with their role there. */
export interface Actor {
  userId: string;
  role: OrganizationRole;
}

/**
 * The caller's membership of the organization the path names, or 404: an organization the caller
 * does not belong to is not told apart from one that does not exist.
 */
export async function actorIn(
  db: Kysely<DataPlaneSchema>,
  userId: string,
  organizationId: string,
): Promise<Actor> {
  const membership = await membershipOf(db, userId, organizationId);
  if (!membership) throw notFound(`organization ${organizationId} not found`);
  return { userId, role: membership.role };
}

export function requireManager(actor: Actor): void {
  if (!mayManageMembers(actor.role)) {
    throw refused(`your role ${actor.role} cannot manage this organization's members; an owner or admin can`);
  }
}

export function requireOwner(actor: Actor, what: string): void {
  if (actor.role !== 'owner') throw refused(`only an owner can ${what}`);
}

/** The organization's members, owners first, then by when they joined. */
export async function listMembers(db: Kysely<DataPlaneSchema>, organizationId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id as user_id', 'u.email', 'u.name', 'm.role', 'm.created_at as joined_at'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.created_at')
    .orderBy('u.id')
    .execute();
  const rank = (role: OrganizationRole) => (role === 'owner' ? 0 : 1);
  return rows.sort((a, b) => rank(a.role) - rank(b.role));
}

async function memberRow(trx: Transaction<DataPlaneSchema>, organizationId: string, userId: string) {
  return trx
    .selectFrom('organization_members')
    .select(['role'])
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

async function ownerCount(trx: Transaction<DataPlaneSchema>, organizationId: string): Promise<number> {
  const { count } = await trx
    .selectFrom('organization_members')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(count);
}

function lastOwner(what: string) {
  return conflicting(
    'last_owner',
    `${what} would leave the organization without an owner; make another member owner first`,
  );
}

function lockOf(organizationId: string) {
  return { lockClass: MEMBERSHIP_LOCK_CLASS, key: organizationId };
}

/** Gives a member another role. Only an owner grants or takes away ownership. */
export async function changeRole(
  database: DataPlane,
  change: { organizationId: string; actor: Actor; userId: string; role: OrganizationRole },
  now: Date,
): Promise<Member> {
  const { organizationId, actor, userId, role } = change;
  requireManager(actor);
  await serializedTransaction(database, lockOf(organizationId), async (trx) => {
    const current = await memberRow(trx, organizationId, userId);
    if (!current) throw notFound(`user ${userId} is not a member of this organization`);
    if (!mayAssign(actor.role, current.role) || !mayAssign(actor.role, role)) {
      throw refused('only an owner can grant or take away the owner role');
    }
    if (current.role === role) return;
    if (current.role === 'owner' && (await ownerCount(trx, organizationId)) === 1) {
      throw lastOwner('demoting the last owner');
    }
    await trx
      .updateTable('organization_members')
      .set({ role })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    await recordAudit(
      trx,
      {
        organizationId,
        actorId: actor.userId,
        action: 'role_changed',
        subject: userId,
        details: { from: current.role, to: role },
      },
      now,
    );
  });
  const member = (await listMembers(database.kysely, organizationId)).find(
    (entry) => entry.user_id === userId,
  );
  return member!;
}

/**
 * Takes a member out of the organization, or lets a member leave it. Their access ends at once:
 * their API keys for it are deleted, and a user whose current organization it was is switched to
 * another of theirs (a new personal one when none is left).
 */
export async function removeMember(
  database: DataPlane,
  removal: { organizationId: string; actor: Actor; userId: string },
  now: Date,
): Promise<void> {
  const { organizationId, actor, userId } = removal;
  const leaving = actor.userId === userId;
  if (!leaving) requireManager(actor);
  await serializedTransaction(database, lockOf(organizationId), async (trx) => {
    const current = await memberRow(trx, organizationId, userId);
    if (!current) throw notFound(`user ${userId} is not a member of this organization`);
    if (!leaving && !mayAssign(actor.role, current.role)) {
      throw refused('only an owner can remove an owner');
    }
    if (current.role === 'owner' && (await ownerCount(trx, organizationId)) === 1) {
      throw lastOwner(leaving ? 'leaving as the last owner' : 'removing the last owner');
    }
    await trx
      .deleteFrom('organization_members')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    await trx
      .deleteFrom('api_keys')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    await switchAwayFrom(trx, userId, organizationId, now);
    await recordAudit(
      trx,
      {
        organizationId,
        actorId: actor.userId,
        action: 'member_removed',
        subject: userId,
        details: { role: current.role, left: leaving },
      },
      now,
    );
  });
}

/**
 * Moves a user whose current organization is `organizationId` to their oldest other one, or to a
 * new personal organization when they belong to none.
 */
export async function switchAwayFrom(
  trx: Transaction<DataPlaneSchema>,
  userId: string,
  organizationId: string,
  now: Date,
): Promise<void> {
  const user = await trx
    .selectFrom('users')
    .select(['name', 'current_organization_id'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user || user.current_organization_id !== organizationId) return;
  const remaining: Membership[] = await listMemberships(trx, userId);
  const next =
    remaining[0] ??
    (await createOrganization(trx, { name: personalOrganizationName(user.name), ownerId: userId }, now));
  await trx
    .updateTable('users')
    .set({ current_organization_id: next.id, updated_at: now.toISOString() })
    .where('id', '=', userId)
    .execute();
}
