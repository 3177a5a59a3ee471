import { createApiKey, deleteApiKey, listApiKeys } from '../../../accounts/api-keys.js';
import { requireUserSession } from '../../../accounts/authenticator.js';
import { depsOf, type AccountsRouteServices } from './accounts-services.js';
import { membershipOf } from '../../../accounts/organizations.js';
import { SCOPES } from '../../../accounts/roles.js';
import { forbidden } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext, type Empty } from '../../routing/route.js';

const TIMESTAMP = { type: 'string', format: 'date-time' } as const satisfies JsonSchema;

const KEY_FIELDS = {
  id: { type: 'string', examples: ['key_abcdefghijklmnopqrstuvwx'] },
  name: { type: 'string' },
  prefix: { type: 'string', description: 'The visible beginning of the key, to recognise it by' },
  scopes: { type: 'array', items: { type: 'string' } },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
  created_at: TIMESTAMP,
} as const satisfies Record<string, JsonSchema>;

interface CreateKeyBody {
  name: string;
  scopes: string[];
  expires_at?: string;
}

async function issueApiKey(ctx: AuthenticatedContext<{ body: CreateKeyBody }, AccountsRouteServices>) {
  const session = requireUserSession(ctx.principal);
  const organizationId = ctx.principal.organizationId;
  const membership =
    organizationId === undefined
      ? undefined
      : await membershipOf(ctx.accounts.database.kysely, session.userId, organizationId);
  if (!membership) throw forbidden('you are not a member of your current organization; switch to another');
  const {
    organization_id: _organization,
    last_used_at: _used,
    ...key
  } = await createApiKey(depsOf(ctx), {
    userId: session.userId,
    organizationId: membership.id,
    role: membership.role,
    name: ctx.body.name.trim(),
    scopes: ctx.body.scopes,
    expiresAt: ctx.body.expires_at,
  });
  return { status: 201, data: key };
}

async function listOwnApiKeys(ctx: AuthenticatedContext<Empty, AccountsRouteServices>) {
  return { data: await listApiKeys(ctx.accounts, requireUserSession(ctx.principal).userId) };
}

async function revokeApiKey(ctx: AuthenticatedContext<{ params: { id: string } }, AccountsRouteServices>) {
  await deleteApiKey(depsOf(ctx), requireUserSession(ctx.principal).userId, ctx.params.id);
  return {};
}

/** `/v1/auth/api-keys`: keys a user creates for programs, each bound to one organization. */
export const apiKeysRoutes: RouteModule<AccountsRouteServices> = {
  area: 'accounts',
  routes: [
    defineRoute<{ body: CreateKeyBody }, AccountsRouteServices>({
      method: 'post',
      path: '/v1/auth/api-keys',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Create an API key in the current organization; the key is shown only in this answer',
      description:
        `Send it as \`Authorization: ApiKey <key>\` or \`X-API-Key: <key>\`. Scopes: ${SCOPES.join(', ')}; ` +
        "they must lie within the caller's role in the organization.",
      request: {
        body: {
          type: 'object',
          required: ['name', 'scopes'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
            scopes: {
              type: 'array',
              minItems: 1,
              maxItems: SCOPES.length,
              items: { type: 'string', maxLength: 64 },
              examples: [['vault:read', 'vpc:read']],
            },
            expires_at: { ...TIMESTAMP, description: 'Omit for a key that does not expire' },
          },
        },
      },
      responses: {
        201: {
          description: 'The new key',
          schema: {
            type: 'object',
            required: ['id', 'name', 'key', 'prefix', 'scopes', 'expires_at', 'created_at'],
            properties: { ...KEY_FIELDS, key: { type: 'string', examples: ['cpk_abcdefgh_…'] } },
          },
        },
        400: { description: 'An unknown scope, or an expiry in the past' },
        403: { description: "A scope beyond the caller's role" },
      },
      handler: issueApiKey,
    }),
    defineRoute<Empty, AccountsRouteServices>({
      method: 'get',
      path: '/v1/auth/api-keys',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: "The caller's API keys (without the keys themselves)",
      responses: {
        200: {
          description: 'Keys, oldest first',
          schema: {
            type: 'array',
            items: {
              type: 'object',
              required: [...Object.keys(KEY_FIELDS), 'organization_id', 'last_used_at'],
              properties: {
                ...KEY_FIELDS,
                organization_id: { type: 'string' },
                last_used_at: { type: ['string', 'null'], format: 'date-time' },
              },
            },
          },
        },
      },
      handler: listOwnApiKeys,
    }),
    defineRoute<{ params: { id: string } }, AccountsRouteServices>({
      method: 'delete',
      path: '/v1/auth/api-keys/:id',
      area: 'accounts',
      auth: 'authenticated',
      tags: ['accounts'],
      summary: 'Delete an API key; it stops working at once',
      request: {
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
      },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such key of the caller' } },
      handler: revokeApiKey,
    }),
  ],
};
