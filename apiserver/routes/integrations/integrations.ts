/**
 * `/api/v1/integrations`: connections to third-party providers. The routes validate, keep the
 * credentials sealed in the data plane and write the Integration object; its controller checks
 * the credentials with the provider and reports the phase.
 */
import { readActivity } from '../../../integrations/activity.js';
import { INTEGRATION, type Integration, type IntegrationType } from '../../../crds/integration.js';
import { PROVIDERS, providerTypes } from '../../../integrations/providers/index.js';
import { configurationProblems, credentialProblems } from '../../../controllers/integration/index.js';
import { checkOutboundUrl, EgressError } from '../../../security/egress.js';
import { unprocessable } from '../../errors.js';
import { limitOffsetProperties, type LimitOffsetQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { withoutDeleted } from '../../routing/deleted.js';
import { createResource } from '../../routing/resource-handlers.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import { TYPED_CREATE_ROUTES } from './creates.js';
import {
  checkNameFree,
  createIntegration,
  ID_PARAMS,
  INTEGRATION_DETAIL,
  INTEGRATION_SUMMARY,
  invalidConfiguration,
  invalidCredentials,
  NAME,
  NEW_INTEGRATIONS,
  PHASES,
  readIntegration,
  activityOf,
  restDetail,
  restSummary,
  servicesOf,
  type IntegrationRouteServices,
} from './integration-resources.js';
import { INTEGRATION_RUN_ROUTES } from './runs.js';
import { UPDATED_AT_ANNOTATION } from '../../../crds/annotations.js';

export type { IntegrationRouteServices } from './integration-resources.js';

interface GenericCreateBody {
  name: string;
  type: string;
  credentials: Record<string, unknown>;
  configuration?: Record<string, unknown>;
}

interface PatchBody {
  name?: string;
  configuration?: Record<string, unknown>;
  enabled?: boolean;
}

function knownType(type: string): IntegrationType {
  if (!(providerTypes() as readonly string[]).includes(type)) {
    throw unprocessable(
      `type ${JSON.stringify(type)} is not an integration type; use ${providerTypes().join(', ')}`,
      {
        details: {
          fields: [{ in: 'body', field: 'type', rule: 'enum', message: 'unknown integration type' }],
        },
      },
    );
  }
  return type as IntegrationType;
}

/** Every `/api/v1/integrations` route. */
const base = { area: 'integrations', auth: 'authenticated', tags: ['integrations'] } as const;
const read = ['integrations:read'];
const write = ['integrations:write'];
async function listIntegrations({
  query,
  principal,
  now,
  database,
  store,
}: AuthenticatedContext<
  { query: LimitOffsetQuery & { type?: IntegrationType; status?: string } },
  IntegrationRouteServices
>) {
  const { items } = await store.list<Integration>(INTEGRATION, {
    namespace: tenantNamespace(principal),
  });
  const activity = await readActivity(
    database,
    items.map((item) => item.metadata.name),
  );
  const rows = withoutDeleted(items)
    .map((item) => restSummary(item, activity.get(item.metadata.name) ?? {}, now()))
    .filter((row) => query.type === undefined || row.type === query.type)
    .filter((row) => query.status === undefined || row.status === query.status)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return { data: rows.slice(query.offset, query.offset + query.limit) };
}

async function createAnyIntegration(
  ctx: AuthenticatedContext<{ body: GenericCreateBody }, IntegrationRouteServices>,
) {
  const { body } = ctx;
  const type = knownType(body.type);
  const configuration = body.configuration ?? {};
  const configProblems = configurationProblems(type, configuration);
  if (configProblems.length > 0) throw invalidConfiguration(configProblems);
  const credentialIssues = credentialProblems(type, body.credentials);
  if (credentialIssues.length > 0) throw invalidCredentials(credentialIssues);
  const services = servicesOf(ctx);
  for (const key of PROVIDERS[type].settings.credentials.outboundUrls ?? []) {
    try {
      await checkOutboundUrl(String(body.credentials[key]), {
        allowPrivate: services.config.allowPrivateEgress,
      });
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      throw invalidCredentials([{ field: `credentials.${key}`, message: error.message }]);
    }
  }
  const name = body.name.trim();
  const family = {
    ...NEW_INTEGRATIONS,
    view: (created: Integration) => {
      const { id, status, created_at } = restSummary(created, {}, ctx.now());
      return { id, name, type, status, configuration, created_at };
    },
  };
  return createResource(ctx, family, name, ({ id, namespace }) =>
    createIntegration(services, {
      id,
      namespace,
      type,
      name,
      configuration,
      credentials: body.credentials as Record<string, string>,
      accountKey: null,
      verified: false,
    }),
  );
}

async function getIntegration({
  params,
  principal,
  now,
  database,
  store,
}: AuthenticatedContext<{ params: { id: string } }, IntegrationRouteServices>) {
  const integration = await readIntegration(store, tenantNamespace(principal), params.id);
  return { data: restDetail(integration, await activityOf(database, integration), now()) };
}

async function updateIntegration({
  params,
  body,
  principal,
  now,
  store,
}: AuthenticatedContext<{ params: { id: string }; body: PatchBody }, IntegrationRouteServices>) {
  const namespace = tenantNamespace(principal);
  const integration = await readIntegration(store, namespace, params.id);
  const spec = integration.spec!;
  if (body.configuration !== undefined) {
    const problems = configurationProblems(spec.type, body.configuration);
    if (problems.length > 0) throw invalidConfiguration(problems);
  }
  const name = body.name?.trim() ?? spec.name;
  if (name !== spec.name) await checkNameFree(store, namespace, name, params.id);
  const updatedAt = now().toISOString();
  const updated = await store.update<Integration>(INTEGRATION, {
    ...integration,
    metadata: {
      ...integration.metadata,
      annotations: { ...integration.metadata.annotations, [UPDATED_AT_ANNOTATION]: updatedAt },
    },
    spec: {
      ...spec,
      name,
      configuration: { ...spec.configuration, ...body.configuration },
      enabled: body.enabled ?? spec.enabled ?? true,
    },
  });
  return { data: { id: updated.metadata.name, name, updated_at: updatedAt } };
}

async function deleteIntegration({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: { id: string } }, IntegrationRouteServices>) {
  const namespace = tenantNamespace(principal);
  await readIntegration(store, namespace, params.id);
  await store.delete(INTEGRATION, namespace, params.id);
  return { status: 204 };
}

export const integrationRoutes: RouteModule<IntegrationRouteServices> = {
  area: 'integrations',
  routes: [
    defineRoute<
      { query: LimitOffsetQuery & { type?: IntegrationType; status?: string } },
      IntegrationRouteServices
    >({
      ...base,
      method: 'get',
      path: '/api/v1/integrations',
      scopes: read,
      summary: "The organization's integrations",
      request: {
        query: {
          type: 'object',
          properties: {
            type: { type: 'string', enum: providerTypes(), 'x-domain-rule': true },
            status: { type: 'string', enum: PHASES },
            ...limitOffsetProperties({ defaultLimit: 20, maxLimit: 100 }),
          },
        },
      },
      responses: {
        200: {
          description: 'Integrations, oldest first',
          schema: { type: 'array', items: INTEGRATION_SUMMARY },
        },
      },
      handler: listIntegrations,
    }),
    defineRoute<{ body: GenericCreateBody }, IntegrationRouteServices>({
      ...base,
      method: 'post',
      path: '/api/v1/integrations',
      scopes: write,
      summary: 'Create an integration',
      description:
        'The integration is pending until its controller has checked the credentials with the provider; it ' +
        'then becomes connected, or error (expired) naming what the provider answered.',
      request: {
        body: {
          type: 'object',
          required: ['name', 'type', 'credentials'],
          additionalProperties: false,
          properties: {
            name: NAME,
            type: { type: 'string', maxLength: 32 },
            credentials: { type: 'object' },
            configuration: { type: 'object' },
          },
        },
      },
      responses: {
        201: {
          description: 'The new integration, pending',
          schema: {
            type: 'object',
            properties: {
              id: INTEGRATION_SUMMARY.properties.id,
              name: INTEGRATION_SUMMARY.properties.name,
              type: INTEGRATION_SUMMARY.properties.type,
              status: INTEGRATION_SUMMARY.properties.status,
              configuration: INTEGRATION_SUMMARY.properties.configuration,
              created_at: INTEGRATION_SUMMARY.properties.created_at,
            },
          },
        },
      },
      handler: createAnyIntegration,
    }),
    ...TYPED_CREATE_ROUTES,
    defineRoute<{ params: { id: string } }, IntegrationRouteServices>({
      ...base,
      method: 'get',
      path: '/api/v1/integrations/:id',
      scopes: read,
      summary: 'Read an integration',
      request: { params: ID_PARAMS },
      responses: { 200: { description: 'The integration', schema: INTEGRATION_DETAIL } },
      handler: getIntegration,
    }),
    defineRoute<{ params: { id: string }; body: PatchBody }, IntegrationRouteServices>({
      ...base,
      method: 'patch',
      path: '/api/v1/integrations/:id',
      scopes: write,
      summary: 'Rename, reconfigure, enable or disable an integration',
      description:
        'Configuration keys given replace the stored ones. Disabling makes the integration disconnected; ' +
        'enabling it, or changing its configuration, checks it with the provider again.',
      request: {
        params: ID_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { name: NAME, configuration: { type: 'object' }, enabled: { type: 'boolean' } },
        },
      },
      responses: {
        200: {
          description: 'The integration changed',
          schema: {
            type: 'object',
            properties: {
              id: INTEGRATION_SUMMARY.properties.id,
              name: INTEGRATION_SUMMARY.properties.name,
              updated_at: INTEGRATION_DETAIL.properties.updated_at,
            },
          },
        },
      },
      handler: updateIntegration,
    }),
    defineRoute<{ params: { id: string } }, IntegrationRouteServices>({
      ...base,
      method: 'delete',
      path: '/api/v1/integrations/:id',
      scopes: write,
      summary: 'Delete an integration',
      description: 'Its credentials are destroyed and its codehost webhooks removed (best effort).',
      request: { params: ID_PARAMS },
      responses: { 204: { description: 'Deleted' } },
      handler: deleteIntegration,
    }),
    ...INTEGRATION_RUN_ROUTES,
  ],
};
