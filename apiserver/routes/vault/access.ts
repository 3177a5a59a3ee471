import type { JsonSchema } from '../../routing/json-schema.js';
import { limitOffsetProperties, type LimitOffsetQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import {
  answering,
  callerOf,
  CLUSTER_PARAMS,
  clusterEngine,
  READ_SCOPES,
  WRITE_SCOPES,
  type VaultRouteServices,
} from './vault-request.js';

const TOKEN_FIELDS = {
  accessor: { type: 'string' },
  display_name: { type: 'string' },
  ttl: { type: 'integer' },
  issue_time: { type: 'string', format: 'date-time' },
  expire_time: { type: 'string', format: 'date-time' },
  policies: { type: 'array', items: { type: 'string' } },
} as const satisfies Record<string, JsonSchema>;

const NAMED = (name: string, description: string) =>
  ({
    type: 'object',
    required: ['id', name],
    properties: { id: CLUSTER_PARAMS.properties.id, [name]: { type: 'string', description } },
  }) as const;

interface TokenBody {
  display_name?: string;
  ttl?: number;
  policies?: string[];
}

interface AuthBody {
  type: string;
  description?: string;
  config?: Record<string, unknown>;
}

async function listVaultPolicies(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const policies = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'LIST', path: 'sys/policies/acl', capability: 'list', successStatus: 200 },
      (ops) => ops.policies.list(),
    ),
  );
  return {
    data: { policies: policies.map(({ name, description, rules }) => ({ name, description, rules })) },
  };
}

async function writeVaultPolicy(
  ctx: AuthenticatedContext<
    { params: { id: string }; body: { name: string; rules: string; description?: string } },
    VaultRouteServices
  >,
) {
  const cluster = await clusterEngine(ctx);
  const { name, rules, description } = ctx.body;
  await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: `sys/policies/acl/${name}`,
        capability: 'update',
        successStatus: 200,
      },
      (ops) => ops.policies.write(name, rules, description),
    ),
  );
  return { status: 200 };
}

async function getVaultPolicy(
  ctx: AuthenticatedContext<{ params: { id: string; name: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { name } = ctx.params;
  const policy = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'READ', path: `sys/policies/acl/${name}`, capability: 'read', successStatus: 200 },
      (ops) => ops.policies.read(name),
    ),
  );
  return { data: { name: policy.name, rules: policy.rules, created_at: policy.created_at } };
}

async function deleteVaultPolicy(
  ctx: AuthenticatedContext<{ params: { id: string; name: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { name } = ctx.params;
  await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'DELETE',
        path: `sys/policies/acl/${name}`,
        capability: 'delete',
        successStatus: 204,
      },
      (ops) => ops.policies.delete(name),
    ),
  );
  return { status: 204 };
}

async function listAuthMethods(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const methods = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'READ', path: 'sys/auth', capability: 'read', successStatus: 200 },
      (ops) => ops.authMethods.list(),
    ),
  );
  return { data: { auth_methods: methods } };
}

async function enableAuthMethod(
  ctx: AuthenticatedContext<{ params: { id: string; method: string }; body: AuthBody }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { method } = ctx.params;
  const { type, description, config } = ctx.body;
  await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'UPDATE', path: `sys/auth/${method}`, capability: 'sudo', successStatus: 204 },
      (ops) => ops.authMethods.enable(method, type, description, config),
    ),
  );
  return { status: 204 };
}

async function listVaultTokens(ctx: AuthenticatedContext<{ params: { id: string } }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const tokens = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'LIST', path: 'auth/token/accessors', capability: 'list', successStatus: 200 },
      (ops) => ops.tokens.list(),
    ),
  );
  return {
    data: tokens.map((token) => ({
      accessor: token.accessor,
      type: token.type,
      display_name: token.display_name,
      ttl: token.ttl,
      issue_time: token.issue_time,
      expire_time: token.expire_time,
      last_renewal_time: token.last_renewal_time,
      policies: token.policies,
    })),
  };
}

async function createVaultToken(
  ctx: AuthenticatedContext<{ params: { id: string }; body: TokenBody }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const token = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'UPDATE', path: 'auth/token/create', capability: 'update', successStatus: 201 },
      (ops) => ops.createToken(ctx.body),
    ),
  );
  return {
    status: 201,
    data: {
      client_token: token.client_token,
      accessor: token.accessor,
      display_name: token.display_name,
      ttl: token.ttl,
      issue_time: token.issue_time,
      expire_time: token.expire_time,
      policies: token.policies,
    },
  };
}

async function revokeVaultToken(
  ctx: AuthenticatedContext<{ params: { id: string; accessor: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: 'auth/token/revoke-accessor',
        capability: 'update',
        successStatus: 204,
      },
      (ops) => ops.tokens.revokeAccessor(ctx.params.accessor),
    ),
  );
  return { status: 204 };
}

async function readVaultAudit(
  ctx: AuthenticatedContext<
    { params: { id: string }; query: LimitOffsetQuery & { from?: string; to?: string } },
    VaultRouteServices
  >,
) {
  const cluster = await clusterEngine(ctx);
  const { limit, offset, from, to } = ctx.query;
  const entries = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'READ',
        path: 'sys/audit',
        capability: 'sudo',
        successStatus: 200,
        requiresUnseal: false,
      },
      (ops) =>
        ops.audit.query({
          limit,
          offset,
          from: from === undefined ? undefined : new Date(from).toISOString(),
          to: to === undefined ? undefined : new Date(to).toISOString(),
        }),
    ),
  );
  return { data: entries };
}

/** Policies, auth methods, tokens and the audit log. */
export const VAULT_ACCESS_ROUTES: RouteDefinition<VaultRouteServices>[] = [
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/policies',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'List policies, the built-in default and root included',
    request: { params: CLUSTER_PARAMS },
    responses: {
      200: {
        description: '{policies}',
        schema: { type: 'object', properties: { policies: { type: 'array' } } },
      },
    },
    handler: listVaultPolicies,
  }),
  defineRoute<
    { params: { id: string }; body: { name: string; rules: string; description?: string } },
    VaultRouteServices
  >({
    method: 'post',
    path: '/api/v1/vault/:id/policies',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Create or update a policy',
    description:
      'Idempotent: writing an existing policy replaces its rules (409 is reserved for check-and-set writes). Rules are parsed strictly; a syntax error answers 400 naming the line.',
    request: {
      params: CLUSTER_PARAMS,
      body: {
        type: 'object',
        required: ['name', 'rules'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 128 },
          rules: { type: 'string', maxLength: 65536 },
          description: { type: 'string', maxLength: 1000 },
        },
      },
    },
    responses: { 200: { description: 'Stored' }, 400: { description: 'Invalid name or rules' } },
    handler: writeVaultPolicy,
  }),
  defineRoute<{ params: { id: string; name: string } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/policies/:name',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'Read a policy',
    request: { params: NAMED('name', 'The policy name') },
    responses: {
      200: { description: '{name, rules, created_at}' },
      404: { description: 'No such policy' },
    },
    handler: getVaultPolicy,
  }),
  defineRoute<{ params: { id: string; name: string } }, VaultRouteServices>({
    method: 'delete',
    path: '/api/v1/vault/:id/policies/:name',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Delete a policy',
    request: { params: NAMED('name', 'The policy name') },
    responses: {
      204: { description: 'Deleted' },
      400: { description: 'A built-in policy' },
      404: { description: 'No such policy' },
    },
    handler: deleteVaultPolicy,
  }),
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/auth',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'List enabled auth methods',
    request: { params: CLUSTER_PARAMS },
    responses: { 200: { description: '{auth_methods}' } },
    handler: listAuthMethods,
  }),
  defineRoute<{ params: { id: string; method: string }; body: AuthBody }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/auth/:method',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Enable an auth method at a path (token, jwt, approle); for token, tune its TTLs',
    request: {
      params: NAMED('method', 'The mount path'),
      body: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: {
          type: { type: 'string' },
          description: { type: 'string', maxLength: 1000 },
          config: { type: 'object' },
        },
      },
    },
    responses: {
      204: { description: 'Enabled' },
      400: { description: 'Unknown type or invalid config' },
      409: { description: 'Another method is enabled at the path' },
    },
    handler: enableAuthMethod,
  }),
  defineRoute<{ params: { id: string } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/tokens',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'List live tokens (never their values)',
    request: { params: CLUSTER_PARAMS },
    responses: {
      200: {
        description: 'Tokens',
        schema: { type: 'array', items: { type: 'object', properties: TOKEN_FIELDS } },
      },
    },
    handler: listVaultTokens,
  }),
  defineRoute<{ params: { id: string }; body: TokenBody }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/tokens',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Create a token; client_token is shown only in this answer',
    request: {
      params: CLUSTER_PARAMS,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          display_name: { type: 'string', maxLength: 100 },
          ttl: {
            type: 'integer',
            minimum: 0,
            description: 'Seconds; 0 or absent takes the token method default',
          },
          policies: {
            type: 'array',
            maxItems: 64,
            items: { type: 'string', minLength: 1, maxLength: 128 },
          },
        },
      },
    },
    responses: {
      201: {
        description: 'The token',
        schema: { type: 'object', properties: { client_token: { type: 'string' }, ...TOKEN_FIELDS } },
      },
    },
    handler: createVaultToken,
  }),
  defineRoute<{ params: { id: string; accessor: string } }, VaultRouteServices>({
    method: 'delete',
    path: '/api/v1/vault/:id/tokens/:accessor',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Revoke a token by its accessor',
    request: { params: NAMED('accessor', 'The token accessor') },
    responses: { 204: { description: 'Revoked' }, 404: { description: 'No live token has the accessor' } },
    handler: revokeVaultToken,
  }),
  defineRoute<
    { params: { id: string }; query: LimitOffsetQuery & { from?: string; to?: string } },
    VaultRouteServices
  >({
    method: 'get',
    path: '/api/v1/vault/:id/audit',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'Read the audit log, oldest first; token fields are HMAC-SHA256 under the cluster salt',
    request: {
      params: CLUSTER_PARAMS,
      query: {
        type: 'object',
        properties: {
          ...limitOffsetProperties({ defaultLimit: 100, maxLimit: 1000 }),
          from: { type: 'string', format: 'date-time' },
          to: { type: 'string', format: 'date-time' },
        },
      },
    },
    responses: {
      200: { description: 'Audit entries', schema: { type: 'array', items: { type: 'object' } } },
    },
    handler: readVaultAudit,
  }),
];
