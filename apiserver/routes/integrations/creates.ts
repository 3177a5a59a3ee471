/**
 * The type-specific creates (`POST /api/v1/integrations/<type>`): the provider is asked before
 * anything is stored, so the answer is `connected` or a 400 naming what the provider refused.
 */
import { randomBytes } from 'node:crypto';
import type { Integration, IntegrationType } from '../../../crds/integration.js';
import { codehostWebhookUrl, installRepositoryHooks } from '../../../integrations/codehost-hooks.js';
import { providerContext } from '../../../integrations/connection.js';
import { codehostWebhookId, newIntegrationId } from '../../../integrations/ids.js';
import { accessToken } from '../../../integrations/providers/codehost.js';
import { PROVIDERS } from '../../../integrations/providers/index.js';
import { ProviderError } from '../../../integrations/providers/provider.js';
import { CHAT_PURPOSES } from '../../../integrations/providers/chat.js';
import { MONITOR_SITES } from '../../../integrations/providers/monitor.js';
import { configurationProblems } from '../../../controllers/integration/index.js';
import type { IntegrationCredentials } from '../../../integrations/credentials.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import {
  defineRoute,
  type RouteContext,
  type RouteDefinition,
  type AuthenticatedContext,
} from '../../routing/route.js';
import type { Principal } from '../../../accounts/principal.js';
import { ensureTenantNamespace } from '../../routing/tenancy.js';
import {
  activityOf,
  checkNameFree,
  createIntegration,
  INTEGRATION_SUMMARY,
  invalidConfiguration,
  NAME,
  providerRefusal,
  restSummary,
  servicesOf,
  type IntegrationRouteContext,
  type IntegrationRouteServices,
} from './integration-resources.js';

const CREATED_FIELDS = {
  id: INTEGRATION_SUMMARY.properties.id,
  name: INTEGRATION_SUMMARY.properties.name,
  type: INTEGRATION_SUMMARY.properties.type,
  status: INTEGRATION_SUMMARY.properties.status,
  created_at: INTEGRATION_SUMMARY.properties.created_at,
} as const;

interface TypedCreate {
  type: IntegrationType;
  name: string;
  configuration: Record<string, unknown>;
  credentials: IntegrationCredentials;
  /** Which body field a refusal of the credentials is about. */
  credentialField: string;
}

/**
 * Verifies with the provider, stores the credentials and the object, and marks it connected.
 * `beforeStore` runs after the verification with the new id (codehost creates its webhooks there).
 */
async function createVerified(
  ctx: IntegrationRouteContext & { principal: Principal },
  request: TypedCreate,
  beforeStore?: (
    id: string,
  ) => Promise<{ configuration: Record<string, unknown>; credentials: IntegrationCredentials }>,
): Promise<{ integration: Integration; configuration: Record<string, unknown> }> {
  const services = servicesOf(ctx);
  const namespace = await ensureTenantNamespace(ctx.store, ctx.principal);
  await checkNameFree(ctx.store, namespace, request.name);
  let verified;
  try {
    verified = await PROVIDERS[request.type].verify(
      request.credentials,
      request.configuration,
      providerContext(services),
    );
  } catch (error) {
    if (error instanceof ProviderError) throw providerRefusal(error, request.credentialField);
    throw error;
  }
  const id = newIntegrationId();
  let configuration = { ...request.configuration, ...verified.configuration };
  let credentials = request.credentials;
  if (beforeStore) {
    const extra = await beforeStore(id);
    configuration = { ...configuration, ...extra.configuration };
    credentials = { ...credentials, ...extra.credentials };
  }
  const integration = await createIntegration(services, {
    id,
    namespace,
    type: request.type,
    name: request.name,
    configuration,
    credentials,
    accountKey: verified.accountKey,
    verified: true,
  });
  return { integration, configuration };
}

function checkConfiguration(type: IntegrationType, configuration: Record<string, unknown>): void {
  const problems = configurationProblems(type, configuration, '');
  if (problems.length > 0) throw invalidConfiguration(problems);
}

async function created(
  ctx: Pick<RouteContext, 'database' | 'now'>,
  integration: Integration,
  extra: Record<string, unknown>,
) {
  const activity = await activityOf(ctx.database, integration);
  const { id, name, type, status, created_at } = restSummary(integration, activity, ctx.now());
  return { status: 201, data: { id, name, type, status, ...extra, created_at } };
}

const base = { area: 'integrations', auth: 'authenticated', tags: ['integrations'] } as const;
const write = ['integrations:write'];

function body(required: string[], properties: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    required: ['name', ...required],
    additionalProperties: false,
    properties: { name: NAME, ...properties },
  };
}

const SECRET = { type: 'string', minLength: 1, maxLength: 4096 } as const satisfies JsonSchema;

async function connectCodehost(
  ctx: AuthenticatedContext<
    {
      body: { name: string; installation_id: string; repositories: string[]; events: string[] };
    },
    IntegrationRouteServices
  >,
) {
  const { installation_id, repositories, events } = ctx.body;
  const events_ = [...new Set(events)];
  checkConfiguration('codehost', { installation_id, repositories, events: events_ });
  const secret = randomBytes(32).toString('hex');
  let webhookUrl = '';
  const { integration } = await createVerified(
    ctx,
    {
      type: 'codehost',
      name: ctx.body.name.trim(),
      configuration: { installation_id, repositories },
      credentials: {},
      credentialField: 'installation_id',
    },
    async (id) => {
      const context = providerContext(servicesOf(ctx));
      webhookUrl = codehostWebhookUrl(ctx.publicUrl.href, id);
      try {
        const token = await accessToken({}, { installation_id }, context);
        const hooks = await installRepositoryHooks(
          token,
          repositories,
          { url: webhookUrl, secret, events: events_ },
          context,
        );
        return {
          configuration: { webhook_id: codehostWebhookId(id), webhook_events: events_, hooks },
          credentials: { webhook_secret: secret },
        };
      } catch (error) {
        if (error instanceof ProviderError) throw providerRefusal(error, 'repositories');
        throw error;
      }
    },
  );
  return created(ctx, integration, { webhook_url: webhookUrl, webhook_secret: secret });
}

async function connectEdgenet(
  ctx: AuthenticatedContext<
    { body: { name: string; api_token: string; zones: string[] } },
    IntegrationRouteServices
  >,
) {
  const zones = [...new Set(ctx.body.zones)];
  checkConfiguration('edgenet', { zones });
  const { integration, configuration } = await createVerified(ctx, {
    type: 'edgenet',
    name: ctx.body.name.trim(),
    configuration: { zones },
    credentials: { api_token: ctx.body.api_token },
    credentialField: 'api_token',
  });
  return created(ctx, integration, { zones: configuration.zones });
}

async function connectMonitor(
  ctx: AuthenticatedContext<
    { body: { name: string; api_key: string; app_key?: string; site: string; tags?: string[] } },
    IntegrationRouteServices
  >,
) {
  const tags = [...new Set(ctx.body.tags ?? [])];
  checkConfiguration('monitor', { site: ctx.body.site, tags });
  const { integration } = await createVerified(ctx, {
    type: 'monitor',
    name: ctx.body.name.trim(),
    configuration: { site: ctx.body.site, tags },
    credentials: {
      api_key: ctx.body.api_key,
      ...(ctx.body.app_key === undefined ? {} : { app_key: ctx.body.app_key }),
    },
    credentialField: 'api_key',
  });
  return created(ctx, integration, { tags });
}

async function connectChat(
  ctx: AuthenticatedContext<
    { body: { name: string; webhook_url: string; channels: Record<string, string> } },
    IntegrationRouteServices
  >,
) {
  checkConfiguration('chat', { channels: ctx.body.channels });
  const { integration } = await createVerified(ctx, {
    type: 'chat',
    name: ctx.body.name.trim(),
    configuration: { channels: ctx.body.channels },
    credentials: { webhook_url: ctx.body.webhook_url },
    credentialField: 'webhook_url',
  });
  return created(ctx, integration, { channels: ctx.body.channels });
}

async function connectPager(
  ctx: AuthenticatedContext<
    { body: { name: string; integration_key: string; service_id: string } },
    IntegrationRouteServices
  >,
) {
  const { integration } = await createVerified(ctx, {
    type: 'pager',
    name: ctx.body.name.trim(),
    configuration: { service_id: ctx.body.service_id },
    credentials: { integration_key: ctx.body.integration_key },
    credentialField: 'integration_key',
  });
  return created(ctx, integration, { service_id: ctx.body.service_id });
}

/** The five type-specific create routes. */
export const TYPED_CREATE_ROUTES: RouteDefinition<IntegrationRouteServices>[] = [
  defineRoute<
    {
      body: { name: string; installation_id: string; repositories: string[]; events: string[] };
    },
    IntegrationRouteServices
  >({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/codehost',
    scopes: write,
    summary: 'Connect a codehost installation',
    description:
      'Creates a webhook on each repository delivering the events to webhook_url, signed with ' +
      'webhook_secret, which is shown only in this answer.',
    request: {
      body: body(['installation_id', 'repositories', 'events'], {
        installation_id: { type: 'string', pattern: '^\\d+$', maxLength: 20 },
        repositories: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: { type: 'string', maxLength: 200 },
        },
        events: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 64 } },
      }),
    },
    responses: {
      201: {
        description: 'The integration, connected',
        schema: {
          type: 'object',
          properties: {
            ...CREATED_FIELDS,
            webhook_url: { type: 'string' },
            webhook_secret: { type: 'string' },
          },
        },
      },
    },
    handler: connectCodehost,
  }),
  defineRoute<{ body: { name: string; api_token: string; zones: string[] } }, IntegrationRouteServices>({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/edgenet',
    scopes: write,
    summary: 'Connect an edgenet account',
    request: {
      body: body(['api_token', 'zones'], {
        api_token: SECRET,
        zones: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 253 } },
      }),
    },
    responses: {
      201: {
        description: 'The integration, connected, with the zone ids found',
        schema: { type: 'object', properties: { ...CREATED_FIELDS, zones: { type: 'array' } } },
      },
    },
    handler: connectEdgenet,
  }),
  defineRoute<
    { body: { name: string; api_key: string; app_key?: string; site: string; tags?: string[] } },
    IntegrationRouteServices
  >({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/monitor',
    scopes: write,
    summary: 'Connect a monitor account',
    request: {
      body: body(['api_key', 'site'], {
        api_key: SECRET,
        app_key: SECRET,
        site: { type: 'string', enum: MONITOR_SITES, 'x-domain-rule': true },
        tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 200 } },
      }),
    },
    responses: {
      201: {
        description: 'The integration, connected',
        schema: {
          type: 'object',
          properties: { ...CREATED_FIELDS, tags: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    handler: connectMonitor,
  }),
  defineRoute<
    { body: { name: string; webhook_url: string; channels: Record<string, string> } },
    IntegrationRouteServices
  >({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/chat',
    scopes: write,
    summary: 'Connect a chat workspace through an incoming webhook',
    description: 'A test message is posted to each channel; the webhook URL must be a public https URL.',
    request: {
      body: body(['webhook_url', 'channels'], {
        webhook_url: { type: 'string', minLength: 1, maxLength: 2048 },
        channels: {
          type: 'object',
          propertyNames: { enum: CHAT_PURPOSES },
          additionalProperties: { type: 'string', maxLength: 80 },
        },
      }),
    },
    responses: {
      201: {
        description: 'The integration, connected',
        schema: { type: 'object', properties: { ...CREATED_FIELDS, channels: { type: 'object' } } },
      },
    },
    handler: connectChat,
  }),
  defineRoute<
    { body: { name: string; integration_key: string; service_id: string } },
    IntegrationRouteServices
  >({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/pager',
    scopes: write,
    summary: 'Connect a pager service',
    description:
      'The routing key is checked for its form only: the pager has no way to check it without paging; ' +
      'POST /integrations/:id/test sends a trigger and resolves it at once.',
    request: {
      body: body(['integration_key', 'service_id'], {
        integration_key: { type: 'string', minLength: 1, maxLength: 64 },
        service_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
      }),
    },
    responses: {
      201: {
        description: 'The integration, connected',
        schema: { type: 'object', properties: { ...CREATED_FIELDS, service_id: { type: 'string' } } },
      },
    },
    handler: connectPager,
  }),
];
