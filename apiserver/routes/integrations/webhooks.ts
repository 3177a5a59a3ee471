import type { PublicUrl } from '../../../config/http.js';
/**
 * `/api/v1/integrations/:id/webhooks`: an integration's webhooks and the recorded deliveries,
 * inbound from the code host and outbound with forwarded events.
 */
import { outboundWebhookId } from '../../../integrations/events/event-ids.js';
import { signingSecretOf } from '../../../integrations/events/signing-secrets.js';
import { integrationWebhooks } from '../../../integrations/events/webhooks.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { limitOffsetProperties } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { INTEGRATION_PARAMS, readTenantIntegration } from './events.js';

const WEBHOOK = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['webhook-5d1c9a7e'] },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const ATTEMPT_STATUSES = ['success', 'failed'] as const;

const DELIVERY_ATTEMPT = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['attempt-0f6b1d2e'] },
    webhook_id: { type: 'string' },
    event: { type: 'string' },
    status: { type: 'string', enum: ATTEMPT_STATUSES },
    status_code: { type: 'integer' },
    duration_ms: { type: 'integer' },
    timestamp: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

interface AttemptQuery {
  status?: (typeof ATTEMPT_STATUSES)[number];
  limit: number;
  offset: number;
}

export interface IntegrationWebhookRouteServices {
  /** The key the signing secrets are sealed under. */
  platformKey: Buffer;
  publicUrl: PublicUrl;
}

const SIGNING_SECRET = {
  type: 'object',
  properties: {
    webhook_id: { type: 'string' },
    signing_secret: { type: 'string', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] },
  },
} as const satisfies JsonSchema;

async function listIntegrationWebhooks({
  params,
  principal,
  store,
  publicUrl,
}: AuthenticatedContext<{ params: { id: string } }, IntegrationWebhookRouteServices>) {
  const integration = await readTenantIntegration(store, principal, params.id);
  return { data: integrationWebhooks(integration, publicUrl.href) };
}

async function listWebhookDeliveryAttempts({
  params,
  query,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: { id: string }; query: AttemptQuery }, IntegrationWebhookRouteServices>) {
  await readTenantIntegration(store, principal, params.id);
  let select = database.kysely
    .selectFrom('webhook_delivery_attempts')
    .select(['id', 'webhook_id', 'event', 'status', 'status_code', 'duration_ms', 'timestamp'])
    .where('integration_id', '=', params.id);
  if (query.status !== undefined) select = select.where('status', '=', query.status);
  const rows = await select
    .orderBy('timestamp', 'desc')
    .orderBy('id')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { status: 200, data: rows };
}

async function revealWebhookSigningSecret({
  params,
  principal,
  store,
  database,
  now,
  platformKey,
}: AuthenticatedContext<{ params: { id: string } }, IntegrationWebhookRouteServices>) {
  const integration = await readTenantIntegration(store, principal, params.id);
  const id = integration.metadata.name;
  return {
    status: 200,
    data: {
      webhook_id: outboundWebhookId(id),
      signing_secret: await signingSecretOf(database, platformKey, id, now()),
    },
  };
}

export const integrationWebhookRoutes: RouteModule<IntegrationWebhookRouteServices> = {
  area: 'integrations',
  routes: [
    defineRoute<{ params: { id: string } }, IntegrationWebhookRouteServices>({
      method: 'get',
      path: '/api/v1/integrations/:id/webhooks',
      area: 'integrations',
      auth: 'authenticated',
      scopes: ['integrations:read'],
      summary: "List an integration's webhooks",
      request: { params: INTEGRATION_PARAMS },
      responses: { 200: { description: 'The webhooks', schema: { type: 'array', items: WEBHOOK } } },
      handler: listIntegrationWebhooks,
    }),
    defineRoute<{ params: { id: string }; query: AttemptQuery }, IntegrationWebhookRouteServices>({
      method: 'post',
      path: '/api/v1/integrations/:id/webhooks/delivery-attempts',
      area: 'integrations',
      auth: 'authenticated',
      scopes: ['integrations:read'],
      summary: "List the delivery attempts of an integration's webhooks, newest first",
      description: 'A read, although a POST; it takes no body.',
      request: {
        params: INTEGRATION_PARAMS,
        query: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ATTEMPT_STATUSES },
            ...limitOffsetProperties({ defaultLimit: 50, maxLimit: 200 }),
          },
        },
      },
      responses: {
        200: { description: 'The delivery attempts', schema: { type: 'array', items: DELIVERY_ATTEMPT } },
      },
      handler: listWebhookDeliveryAttempts,
    }),
    defineRoute<{ params: { id: string } }, IntegrationWebhookRouteServices>({
      method: 'post',
      path: '/api/v1/integrations/:id/webhooks/signing-secret',
      area: 'integrations',
      auth: 'authenticated',
      scopes: ['integrations:write'],
      summary: 'Reveal the secret outbound events are signed with',
      description:
        'Receivers verify the Standard Webhooks `webhook-signature` header with it. Created on first use; ' +
        'a POST because it reveals a secret, so it needs the write scope.',
      request: { params: INTEGRATION_PARAMS },
      responses: { 200: { description: 'The signing secret', schema: SIGNING_SECRET } },
      handler: revealWebhookSigningSecret,
    }),
  ],
};
