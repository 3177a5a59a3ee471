/**
 * Invitations by e-mail: an owner or admin invites an address with a role; the link carries a
 * single-use token that expires after a week; the invitee, signed in with that (verified)
 * address, accepts and becomes a member. Inviting an address again replaces its pending
 * invitation. Only the token's hash is stored.
 */
import type { Kysely, Selectable } from 'kysely';
import type {
  DataPlaneSchema,
  OrganizationInvitationsTable,
  OrganizationRole,
} from '../data-plane/schema.js';
import { LOCK_CLASSES, serializedTransaction } from '../data-plane/serialized-transaction.js';
import { conflicting, notFound, refused, spent, throttled } from './account-error.js';
import { invitationMail, sendAccountMail } from './account-mail.js';
import type { AccountsDeps } from './deps.js';
import { newId } from './ids.js';
import type { Mailer } from './mailer.js';
import { requireManager, type Actor } from './members.js';
import { recordAudit } from './organization-audit.js';
import { membershipOf, type Membership } from './organizations.js';
import { newOpaqueToken, tokenHash } from './opaque-tokens.js';
import { mayAssign } from './roles.js';
import { normalizeEmail } from './users.js';

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Invitations one organization may send per hour, so the platform cannot be used to spam. */
export const INVITATIONS_PER_HOUR = 30;
const INVITATION_LOCK_CLASS = LOCK_CLASSES.invitations;

export interface Invitation {
  id: string;
  email: string;
  role: OrganizationRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

function view(row: Selectable<OrganizationInvitationsTable>): Invitation {
  const { id, email, role, invited_by, created_at, expires_at } = row;
  return { id, email, role, invited_by, created_at, expires_at };
}

/** Sends an invitation; a pending one for the same address is revoked and replaced. */
export async function invite(
  deps: AccountsDeps,
  mailer: Mailer,
  request: { organizationId: string; actor: Actor; email: string; role: OrganizationRole },
): Promise<Invitation> {
  const { organizationId, actor, role } = request;
  requireManager(actor);
  if (!mayAssign(actor.role, role)) throw refused('only an owner can invite someone as owner');
  const email = normalizeEmail(request.email);
  const now = deps.now();
  const token = newOpaqueToken('cpinv_');
  const { invitation, organization, inviter } = await serializedTransaction(
    deps.database,
    { lockClass: INVITATION_LOCK_CLASS, key: organizationId },
    async (trx) => {
      const member = await trx
        .selectFrom('organization_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('u.id')
        .where('m.organization_id', '=', organizationId)
        .where('u.email', '=', email)
        .executeTakeFirst();
      if (member) throw conflicting('already_member', `${email} is already a member of this organization`);
      const hourAgo = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
      const recent = await trx
        .selectFrom('organization_invitations')
        .select(['created_at'])
        .where('organization_id', '=', organizationId)
        .where('created_at', '>', hourAgo)
        .orderBy('created_at')
        .execute();
      if (recent.length >= INVITATIONS_PER_HOUR) {
        const retryAfter = Math.max(
          1,
          Math.ceil((Date.parse(recent[0]!.created_at) + 3_600_000 - now.getTime()) / 1000),
        );
        throw throttled(
          retryAfter,
          `this organization has sent ${INVITATIONS_PER_HOUR} invitations in the last hour; try again later`,
        );
      }
      await trx
        .updateTable('organization_invitations')
        .set({ revoked_at: now.toISOString() })
        .where('organization_id', '=', organizationId)
        .where('email', '=', email)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .execute();
      const row = {
        id: newId('inv'),
        organization_id: organizationId,
        email,
        role,
        token_hash: tokenHash(token),
        invited_by: actor.userId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
        accepted_at: null,
        revoked_at: null,
      };
      await trx.insertInto('organization_invitations').values(row).execute();
      await recordAudit(
        trx,
        {
          organizationId,
          actorId: actor.userId,
          action: 'invitation_sent',
          subject: email,
          details: { role },
        },
        now,
      );
      const names = await trx
        .selectFrom('organizations as o')
        .innerJoin('users as u', (join) => join.on('u.id', '=', actor.userId))
        .select(['o.name as organization', 'u.name as inviter'])
        .where('o.id', '=', organizationId)
        .executeTakeFirstOrThrow();
      return { invitation: view(row), ...names };
    },
  );
  await sendAccountMail(
    deps,
    mailer,
    invitationMail(deps.publicUrl.href, email, token, {
      organization,
      inviter,
      role,
      expiresAt: invitation.expires_at,
    }),
  );
  deps.logger.info({ organizationId, invitationId: invitation.id, role }, 'invitation sent');
  return invitation;
}

/** The organization's invitations that can still be accepted, newest first. */
export async function listPendingInvitations(
  db: Kysely<DataPlaneSchema>,
  organizationId: string,
  now: Date,
): Promise<Invitation[]> {
  const rows = await db
    .selectFrom('organization_invitations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(view);
}

/** Revokes a pending invitation; its link stops working at once. */
export async function revokeInvitation(
  deps: AccountsDeps,
  request: { organizationId: string; actor: Actor; invitationId: string },
): Promise<void> {
  const { organizationId, actor, invitationId } = request;
  requireManager(actor);
  const now = deps.now();
  await deps.database.kysely.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('organization_invitations')
      .set({ revoked_at: now.toISOString() })
      .where('id', '=', invitationId)
      .where('organization_id', '=', organizationId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .returning(['email'])
      .executeTakeFirst();
    if (!revoked) throw notFound(`invitation ${invitationId} is not pending in this organization`);
    await recordAudit(
      trx,
      { organizationId, actorId: actor.userId, action: 'invitation_revoked', subject: revoked.email },
      now,
    );
  });
}

/**
 * Accepts an invitation for the signed-in user. The invitation must be for their address, and
 * that address verified: otherwise anyone could sign up with someone else's address and join.
 */
export async function acceptInvitation(
  deps: AccountsDeps,
  request: { token: string; userId: string },
): Promise<Membership> {
  const now = deps.now();
  const membership = await deps.database.kysely.transaction().execute(async (trx) => {
    const invitation = await trx
      .selectFrom('organization_invitations')
      .selectAll()
      .where('token_hash', '=', tokenHash(request.token))
      .executeTakeFirst();
    if (!invitation) throw notFound('no invitation has this token');
    if (invitation.accepted_at !== null)
      throw spent('invitation_used', 'this invitation has been accepted already');
    if (invitation.revoked_at !== null)
      throw spent('invitation_revoked', 'this invitation was revoked or replaced by a newer one');
    if (invitation.expires_at <= now.toISOString())
      throw spent('invitation_expired', 'this invitation has expired; ask for a new one');
    const user = await trx
      .selectFrom('users')
      .select(['email', 'email_verified'])
      .where('id', '=', request.userId)
      .executeTakeFirstOrThrow();
    if (user.email !== invitation.email) {
      throw refused('this invitation is for another e-mail address', {
        code: 'invitation_for_another_address',
      });
    }
    if (!user.email_verified) {
      throw refused('verify your e-mail address before accepting an invitation', {
        code: 'email_not_verified',
      });
    }
    if (await membershipOf(trx, request.userId, invitation.organization_id)) {
      throw conflicting('already_member', 'you are already a member of this organization');
    }
    await trx
      .updateTable('organization_invitations')
      .set({ accepted_at: now.toISOString() })
      .where('id', '=', invitation.id)
      .execute();
    await trx
      .insertInto('organization_members')
      .values({
        organization_id: invitation.organization_id,
        user_id: request.userId,
        role: invitation.role,
        created_at: now.toISOString(),
      })
      .execute();
    await recordAudit(
      trx,
      {
        organizationId: invitation.organization_id,
        actorId: request.userId,
        action: 'member_added',
        subject: request.userId,
        details: { role: invitation.role, invited_by: invitation.invited_by, invitation_id: invitation.id },
      },
      now,
    );
    return (await membershipOf(trx, request.userId, invitation.organization_id))!;
  });
  deps.logger.info({ organizationId: membership.id, userId: request.userId }, 'invitation accepted');
  return membership;
}
