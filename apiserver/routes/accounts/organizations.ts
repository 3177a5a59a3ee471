import { requireUserSession } from '../../../accounts/authenticator.js';
import type { AccountsDeps } from '../../../accounts/deps.js';
import {
  acceptInvitation,
  invite,
  listPendingInvitations,
  revokeInvitation,
} from '../../../accounts/invitations.js';
import {
  actorIn,
  changeRole,
  listMembers,
  removeMember,
  requireManager,
  requireOwner,
} from '../../../accounts/members.js';
import { listAudit } from '../../../accounts/organization-audit.js';
import { requestOrganizationDeletion } from '../../../accounts/organization-deletion.js';
import { KINDS } from '../../../crds/index.js';
import type { PlatformEventType } from '../../../integrations/events/catalogue.js';
import { publishEvent } from '../../../integrations/events/publisher.js';
import { createOrganization, listMemberships } from '../../../accounts/organizations.js';
import { ROLES } from '../../../accounts/roles.js';
import type { OrganizationRole } from '../../../data-plane/schema.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, pageWindow, type PageQuery } from '../../routing/pagination.js';
import {
  defineRoute,
  type RouteContext,
  type RouteModule,
  type AuthenticatedContext,
} from '../../routing/route.js';
import type { AccountsRouteServices } from './accounts-services.js';
import type { Principal } from '../../../accounts/principal.js';

const ORGANIZATION = {
  type: 'object',
  required: ['id', 'name', 'role', 'status', 'created_at'],
  properties: {
    id: { type: 'string', examples: ['org_abcdefghijklmnopqrstuvwx'] },
    name: { type: 'string' },
    role: { type: 'string', enum: ROLES, description: "The caller's role" },
    status: {
      type: 'string',
      enum: ['active', 'deleting'],
      description: '`deleting` once an owner asked for its deletion, until it is gone',
    },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const ROLE = { type: 'string', enum: ROLES } as const satisfies JsonSchema;
const ORGANIZATION_ID = { type: 'string', pattern: '^org_[a-z2-7]{1,59}$' } as const satisfies JsonSchema;

/**
 * An id in a path, of any shape: one that names none of the caller's organizations (or members,
 * or invitations) is a 404 whether it is malformed, made up or another organization's, so the
 * answer never tells which ids exist.
 */
function pathId(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: 64, description };
}
const ORGANIZATION_ID_PARAM = pathId(
  'An organization id (`org_…`); one the caller is not a member of is a 404',
);
const USER_ID_PARAM = pathId('A user id (`usr_…`)');

const MEMBER = {
  type: 'object',
  required: ['user_id', 'email', 'name', 'role', 'joined_at'],
  properties: {
    user_id: { type: 'string' },
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    role: ROLE,
    joined_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const INVITATION = {
  type: 'object',
  required: ['id', 'email', 'role', 'invited_by', 'created_at', 'expires_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string', format: 'email' },
    role: ROLE,
    invited_by: { type: 'string', description: 'The user who sent it' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const AUDIT_ENTRY = {
  type: 'object',
  required: ['id', 'actor_id', 'action', 'subject', 'details', 'created_at'],
  properties: {
    id: { type: 'string' },
    actor_id: { type: 'string' },
    action: {
      type: 'string',
      enum: [
        'member_added',
        'member_removed',
        'role_changed',
        'invitation_sent',
        'invitation_revoked',
        'deletion_requested',
      ],
    },
    subject: { type: 'string', description: 'The user id or e-mail address acted on' },
    details: { type: 'object' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const ORGANIZATION_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: ORGANIZATION_ID_PARAM },
} as const satisfies JsonSchema;

const MEMBER_PARAMS = {
  type: 'object',
  required: ['id', 'user_id'],
  properties: { id: ORGANIZATION_ID_PARAM, user_id: USER_ID_PARAM },
} as const satisfies JsonSchema;

const base = { area: 'accounts', auth: 'authenticated', tags: ['organizations'] } as const;

/** What the organization routes need beyond the core services. */
export interface OrganizationRouteServices extends AccountsRouteServices {
  /** Starts this process's deletion worker on a marked organization, when it runs one. */
  organizationDeletion: { kick(): void };
}

/** Announces a membership change to the organization's integrations that want it. */
async function announce(
  ctx: Pick<RouteContext, 'store' | 'database' | 'now'>,
  event: {
    organizationId: string;
    type: PlatformEventType;
    subject: string;
    payload: Record<string, unknown>;
  },
): Promise<void> {
  await publishEvent({ database: ctx.database, store: ctx.store, now: ctx.now }, event);
}

/** The signed-in caller's membership of the organization in the path (404 when none). */
async function actorOf(accounts: AccountsDeps, ctx: Pick<RouteContext, 'params'> & { principal: Principal }) {
  const userId = requireUserSession(ctx.principal).userId;
  return actorIn(accounts.database.kysely, userId, (ctx.params as { id: string }).id);
}

async function listOrganizations(ctx: AuthenticatedContext<{ query: PageQuery }, OrganizationRouteServices>) {
  const all = await listMemberships(ctx.accounts.database.kysely, requireUserSession(ctx.principal).userId);
  const { limit, offset } = pageWindow(ctx.query);
  return {
    data: all.slice(offset, offset + limit),
    page: { total: all.length, page: ctx.query.page, perPage: ctx.query.per_page },
  };
}

async function createOwnedOrganization(
  ctx: AuthenticatedContext<{ body: { name: string } }, OrganizationRouteServices>,
) {
  const ownerId = requireUserSession(ctx.principal).userId;
  const organization = await ctx.accounts.database.kysely
    .transaction()
    .execute((trx) => createOrganization(trx, { name: ctx.body.name.trim(), ownerId }, ctx.accounts.now()));
  ctx.logger.info({ userId: ownerId, organizationId: organization.id }, 'organization created');
  return { status: 201, data: organization };
}

async function listOrganizationMembers(
  ctx: AuthenticatedContext<{ params: { id: string } }, OrganizationRouteServices>,
) {
  await actorOf(ctx.accounts, ctx);
  return { data: await listMembers(ctx.accounts.database.kysely, ctx.params.id) };
}

async function changeMemberRole(
  ctx: AuthenticatedContext<
    { params: { id: string; user_id: string }; body: { role: OrganizationRole } },
    OrganizationRouteServices
  >,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  const member = await changeRole(
    ctx.accounts.database,
    { organizationId: ctx.params.id, actor, userId: ctx.params.user_id, role: ctx.body.role },
    ctx.accounts.now(),
  );
  ctx.logger.info(
    { organizationId: ctx.params.id, userId: ctx.params.user_id, role: ctx.body.role },
    'member role changed',
  );
  return { data: member };
}

async function removeOrganizationMember(
  ctx: AuthenticatedContext<{ params: { id: string; user_id: string } }, OrganizationRouteServices>,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  await removeMember(
    ctx.accounts.database,
    { organizationId: ctx.params.id, actor, userId: ctx.params.user_id },
    ctx.accounts.now(),
  );
  ctx.logger.info({ organizationId: ctx.params.id, userId: ctx.params.user_id }, 'member removed');
  await announce(ctx, {
    organizationId: ctx.params.id,
    type: 'organization.member_removed',
    subject: ctx.params.user_id,
    payload: { user_id: ctx.params.user_id, removed_by: actor.userId },
  });
  return { status: 204 };
}

async function inviteMember(
  ctx: AuthenticatedContext<
    { params: { id: string }; body: { email: string; role: OrganizationRole } },
    OrganizationRouteServices
  >,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  const invitation = await invite(ctx.accounts, ctx.mailer, {
    organizationId: ctx.params.id,
    actor,
    email: ctx.body.email,
    role: ctx.body.role,
  });
  return { status: 201, data: invitation };
}

async function listInvitations(
  ctx: AuthenticatedContext<{ params: { id: string } }, OrganizationRouteServices>,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  requireManager(actor);
  return {
    data: await listPendingInvitations(ctx.accounts.database.kysely, ctx.params.id, ctx.accounts.now()),
  };
}

async function revokeOrganizationInvitation(
  ctx: AuthenticatedContext<{ params: { id: string; invitation_id: string } }, OrganizationRouteServices>,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  await revokeInvitation(ctx.accounts, {
    organizationId: ctx.params.id,
    actor,
    invitationId: ctx.params.invitation_id,
  });
  return { status: 204 };
}

async function acceptPendingInvitation(
  ctx: AuthenticatedContext<{ params: { token: string } }, OrganizationRouteServices>,
) {
  const userId = requireUserSession(ctx.principal).userId;
  const joined = await acceptInvitation(ctx.accounts, { token: ctx.params.token, userId });
  await announce(ctx, {
    organizationId: joined.id,
    type: 'organization.member_added',
    subject: userId,
    payload: { user_id: userId, role: joined.role },
  });
  return { data: joined };
}

async function listMembershipAudit(
  ctx: AuthenticatedContext<{ params: { id: string }; query: PageQuery }, OrganizationRouteServices>,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  requireOwner(actor, 'read the audit trail');
  const window = pageWindow(ctx.query);
  const { entries, total } = await listAudit(ctx.accounts.database.kysely, ctx.params.id, window);
  return { data: entries, page: { total, page: ctx.query.page, perPage: ctx.query.per_page } };
}

async function deleteOrganization(
  ctx: AuthenticatedContext<
    { params: { id: string }; query: { cascade: boolean }; body: { name: string } },
    OrganizationRouteServices
  >,
) {
  const actor = await actorOf(ctx.accounts, ctx);
  const { remaining } = await requestOrganizationDeletion(
    {
      database: ctx.accounts.database,
      store: ctx.store,
      kinds: KINDS,
      logger: ctx.logger,
      now: ctx.accounts.now,
    },
    { organizationId: ctx.params.id, actor, confirmation: ctx.body.name, cascade: ctx.query.cascade },
  );
  await announce(ctx, {
    organizationId: ctx.params.id,
    type: 'organization.deleted',
    subject: ctx.params.id,
    payload: { deleted_by: actor.userId, cascade: ctx.query.cascade },
  });
  ctx.organizationDeletion.kick();
  return {
    status: 202,
    data: { id: ctx.params.id, status: 'deleting', remaining_resources: remaining.length },
  };
}

/**
 * `/v1/organizations`: the organizations the caller belongs to, their members and roles,
 * invitations by e-mail, and the audit trail of membership changes.
 */
export const organizationsRoutes: RouteModule<OrganizationRouteServices> = {
  area: 'accounts',
  routes: [
    defineRoute<{ query: PageQuery }, OrganizationRouteServices>({
      method: 'get',
      path: '/v1/organizations',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['organizations'],
      summary: "The caller's organizations, with the caller's role in each",
      request: { query: { type: 'object', properties: PAGE_QUERY_PROPERTIES } },
      responses: {
        200: {
          description: 'A page of organizations',
          schema: { type: 'array', items: ORGANIZATION },
          paginated: true,
        },
      },
      handler: listOrganizations,
    }),
    defineRoute<{ body: { name: string } }, OrganizationRouteServices>({
      method: 'post',
      path: '/v1/organizations',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['organizations'],
      summary: 'Create an organization owned by the caller',
      description: 'The current organization stays as it is; switch with PATCH /v1/auth/me.',
      request: {
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } },
        },
      },
      responses: { 201: { description: 'The new organization', schema: ORGANIZATION } },
      handler: createOwnedOrganization,
    }),
    defineRoute<{ params: { id: string } }, OrganizationRouteServices>({
      ...base,
      method: 'get',
      path: '/v1/organizations/:id/members',
      summary: "The organization's members and their roles",
      request: { params: ORGANIZATION_PARAMS },
      responses: {
        200: { description: 'Members, owners first', schema: { type: 'array', items: MEMBER } },
      },
      handler: listOrganizationMembers,
    }),
    defineRoute<
      { params: { id: string; user_id: string }; body: { role: OrganizationRole } },
      OrganizationRouteServices
    >({
      ...base,
      method: 'patch',
      path: '/v1/organizations/:id/members/:user_id',
      summary: "Change a member's role",
      description:
        'Owners and admins manage members; only an owner grants or takes away ownership. Demoting the ' +
        'last owner is a 409 `last_owner`.',
      request: {
        params: MEMBER_PARAMS,
        body: {
          type: 'object',
          required: ['role'],
          additionalProperties: false,
          properties: { role: ROLE },
        },
      },
      responses: {
        200: { description: 'The member', schema: MEMBER },
        403: { description: 'The caller may not change this role' },
        409: { description: '`last_owner`' },
      },
      handler: changeMemberRole,
    }),
    defineRoute<{ params: { id: string; user_id: string } }, OrganizationRouteServices>({
      ...base,
      method: 'delete',
      path: '/v1/organizations/:id/members/:user_id',
      summary: 'Remove a member, or leave the organization (your own user id)',
      description:
        "The member's access ends at once: their API keys for the organization are deleted and, if it was " +
        'their current organization, they are switched to another of theirs (a new personal one when none ' +
        'is left). Removing the last owner is a 409 `last_owner`.',
      request: { params: MEMBER_PARAMS },
      responses: { 204: { description: 'Removed' }, 409: { description: '`last_owner`' } },
      handler: removeOrganizationMember,
    }),
    defineRoute<
      { params: { id: string }; body: { email: string; role: OrganizationRole } },
      OrganizationRouteServices
    >({
      ...base,
      method: 'post',
      path: '/v1/organizations/:id/invitations',
      summary: 'Invite someone by e-mail',
      description:
        'Sends a link that works once, for a week, for the invited address only. Inviting the address again ' +
        'replaces its pending invitation. 409 `already_member` for a member; 429 past the hourly budget.',
      request: {
        params: ORGANIZATION_PARAMS,
        body: {
          type: 'object',
          required: ['email', 'role'],
          additionalProperties: false,
          properties: { email: { type: 'string', format: 'email', maxLength: 254 }, role: ROLE },
        },
      },
      responses: {
        201: { description: 'The invitation (its link goes only to the address)', schema: INVITATION },
        403: { description: 'The caller may not invite, or not with this role' },
        409: { description: '`already_member`' },
        429: { description: 'Too many invitations from this organization in the last hour' },
      },
      handler: inviteMember,
    }),
    defineRoute<{ params: { id: string } }, OrganizationRouteServices>({
      ...base,
      method: 'get',
      path: '/v1/organizations/:id/invitations',
      summary: 'Invitations that can still be accepted',
      request: { params: ORGANIZATION_PARAMS },
      responses: {
        200: {
          description: 'Pending invitations, newest first',
          schema: { type: 'array', items: INVITATION },
        },
      },
      handler: listInvitations,
    }),
    defineRoute<{ params: { id: string; invitation_id: string } }, OrganizationRouteServices>({
      ...base,
      method: 'delete',
      path: '/v1/organizations/:id/invitations/:invitation_id',
      summary: 'Revoke a pending invitation; its link stops working at once',
      request: {
        params: {
          type: 'object',
          required: ['id', 'invitation_id'],
          properties: {
            id: ORGANIZATION_ID_PARAM,
            invitation_id: pathId('An invitation id (`inv_…`)'),
          },
        },
      },
      responses: { 204: { description: 'Revoked' } },
      handler: revokeOrganizationInvitation,
    }),
    defineRoute<{ params: { token: string } }, OrganizationRouteServices>({
      ...base,
      method: 'post',
      path: '/v1/invitations/:token/accept',
      summary: 'Accept an invitation as the signed-in user',
      description:
        'The invitation must be for your verified address (403 otherwise); a used, revoked or expired one ' +
        'is a 410. The organization is added to yours; switch to it with PATCH /v1/auth/me.',
      request: {
        params: {
          type: 'object',
          required: ['token'],
          properties: { token: { type: 'string', minLength: 10, maxLength: 200 } },
        },
      },
      responses: {
        200: { description: 'The organization joined, with your role', schema: ORGANIZATION },
        403: { description: '`invitation_for_another_address` or `email_not_verified`' },
        409: { description: '`already_member`' },
        410: { description: '`invitation_used`, `invitation_revoked` or `invitation_expired`' },
      },
      handler: acceptPendingInvitation,
    }),
    defineRoute<{ params: { id: string }; query: PageQuery }, OrganizationRouteServices>({
      ...base,
      method: 'get',
      path: '/v1/organizations/:id/audit',
      summary: 'Who changed what in the membership, newest first (owners only)',
      request: {
        params: ORGANIZATION_PARAMS,
        query: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
      },
      responses: {
        200: {
          description: 'A page of entries',
          schema: { type: 'array', items: AUDIT_ENTRY },
          paginated: true,
        },
        403: { description: 'The caller is not an owner' },
      },
      handler: listMembershipAudit,
    }),
    defineRoute<
      { params: { id: string }; query: { cascade: boolean }; body: { name: string } },
      OrganizationRouteServices
    >({
      ...base,
      method: 'delete',
      path: '/v1/organizations/:id',
      summary: 'Delete the organization (owners), its name repeated as confirmation',
      description:
        'With resources left, a 409 `organization_not_empty` lists them unless `cascade=true`, which deletes ' +
        'every resource through its normal finalizers, then the namespace, then the organization. The ' +
        'deletion goes on in the background and survives a restart; members left without an organization ' +
        'get a new personal one.',
      request: {
        params: ORGANIZATION_PARAMS,
        query: { type: 'object', properties: { cascade: { type: 'boolean', default: false } } },
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
      responses: {
        202: {
          description: 'The deletion is under way',
          schema: {
            type: 'object',
            required: ['id', 'status', 'remaining_resources'],
            properties: {
              id: ORGANIZATION_ID,
              status: { type: 'string', enum: ['deleting'] },
              remaining_resources: { type: 'integer', minimum: 0 },
            },
          },
        },
        400: { description: '`confirmation_mismatch`: the name does not repeat the organization name' },
        403: { description: 'The caller is not an owner' },
        409: { description: '`organization_not_empty`, with the resources left' },
      },
      handler: deleteOrganization,
    }),
  ],
};
