import { requireUserSession } from '../../../accounts/authenticator.js';
import type { AccountsDeps } from '../../../accounts/deps.js';
import { createOrganization, listMemberships } from '../../../accounts/organizations.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, pageWindow, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule } from '../../routing/route.js';

const ORGANIZATION = {
  type: 'object',
  required: ['id', 'name', 'role', 'created_at'],
  properties: {
    id: { type: 'string', examples: ['org_abcdefghijklmnopqrstuvwx'] },
    name: { type: 'string' },
    role: { type: 'string', enum: ['owner', 'admin', 'member'], description: "The caller's role" },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

/** `/v1/organizations`: the organizations the caller belongs to. */
export function organizationsRoutes(accounts: AccountsDeps): RouteModule {
  return {
    area: 'accounts',
    routes: [
      defineRoute<{ query: PageQuery }>({
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
        async handler(ctx) {
          const all = await listMemberships(
            accounts.database.kysely,
            requireUserSession(ctx.principal).userId,
          );
          const { limit, offset } = pageWindow(ctx.query);
          return {
            data: all.slice(offset, offset + limit),
            page: { total: all.length, page: ctx.query.page, perPage: ctx.query.per_page },
          };
        },
      }),
      defineRoute<{ body: { name: string } }>({
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
        async handler(ctx) {
          const ownerId = requireUserSession(ctx.principal).userId;
          const organization = await accounts.database.kysely
            .transaction()
            .execute((trx) =>
              createOrganization(trx, { name: ctx.body.name.trim(), ownerId }, accounts.now()),
            );
          ctx.logger.info({ userId: ownerId, organizationId: organization.id }, 'organization created');
          return { status: 201, data: organization };
        },
      }),
    ],
  };
}
