/**
 * The type-specific creates (`POST /api/v1/integrations/<type>`): the provider is asked before
 * anything is stored, so the answer is `connected` or a 400 naming what the provider refused.
 */
import type { PublicUrl } from '../../../config/http.js';
import type { Integration } from '../../../crds/integration.js';
import { providerContext } from '../../../integrations/connection.js';
import { providers } from '../../../integrations/providers/index.js';
import {
  createAnswerOf,
  ProviderError,
  type CreateRequest,
  type ProviderAdapter,
  type ProviderCreate,
} from '../../../integrations/providers/provider.js';
import { configurationProblems } from '../../../controllers/integration/index.js';
import {
  defineRoute,
  type RouteContext,
  type RouteDefinition,
  type AuthenticatedContext,
} from '../../routing/route.js';
import type { Principal } from '../../../accounts/principal.js';
import { newResourcePlace } from '../../routing/resource-handlers.js';
import {
  activityOf,
  createIntegration,
  INTEGRATION_SUMMARY,
  invalidConfiguration,
  NAME,
  NEW_INTEGRATIONS,
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

/**
 * Verifies with the provider, stores the credentials and the object, and marks it connected.
 * The provider's `connect` runs after the verification with the new id (codehost creates its
 * webhooks there); what it answers goes into the 201.
 */
async function createVerified(
  ctx: IntegrationRouteContext & { principal: Principal; publicUrl: PublicUrl },
  provider: ProviderAdapter,
  name: string,
  request: CreateRequest,
): Promise<{
  integration: Integration;
  configuration: Record<string, unknown>;
  answer: Record<string, unknown>;
}> {
  const services = servicesOf(ctx);
  const { id, namespace } = await newResourcePlace(ctx, NEW_INTEGRATIONS, name);
  const context = providerContext(services);
  let verified;
  let connected;
  try {
    verified = await provider.verify(request.credentials, request.configuration, context);
    connected = await provider.create?.connect?.(id, request, { ...context, publicUrl: ctx.publicUrl.href });
  } catch (error) {
    if (error instanceof ProviderError) throw providerRefusal(error, request.credentialField);
    throw error;
  }
  const configuration = {
    ...request.configuration,
    ...verified.configuration,
    ...connected?.configuration,
  };
  const integration = await createIntegration(services, {
    id,
    namespace,
    type: provider.type,
    name,
    configuration,
    credentials: { ...request.credentials, ...connected?.credentials },
    accountKey: verified.accountKey,
    verified: true,
  });
  return { integration, configuration, answer: connected?.answer ?? {} };
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

type TypedCreateBody = { name: string } & Record<string, unknown>;

/** The named handler of a provider's create: `connectCodehost` for the codehost. */
function connectHandler(provider: ProviderAdapter, create: ProviderCreate) {
  const handlerName = `connect${provider.type[0]!.toUpperCase()}${provider.type.slice(1)}`;
  const handlers = {
    async [handlerName](ctx: AuthenticatedContext<{ body: TypedCreateBody }, IntegrationRouteServices>) {
      const request = create.request(ctx.body);
      const problems = configurationProblems(provider.type, request.checked ?? request.configuration, '');
      if (problems.length > 0) throw invalidConfiguration(problems);
      const { integration, configuration, answer } = await createVerified(
        ctx,
        provider,
        ctx.body.name.trim(),
        request,
      );
      return created(ctx, integration, { ...createAnswerOf(create, configuration), ...answer });
    },
  };
  return handlers[handlerName]!;
}

function typedCreateRoute(provider: ProviderAdapter, create: ProviderCreate) {
  return defineRoute<{ body: TypedCreateBody }, IntegrationRouteServices>({
    ...base,
    method: 'post',
    path: `/api/v1/integrations/${provider.type}`,
    scopes: write,
    summary: create.summary,
    ...(create.description === undefined ? {} : { description: create.description }),
    request: {
      body: {
        type: 'object',
        required: ['name', ...create.required],
        additionalProperties: false,
        properties: { name: NAME, ...create.fields },
      },
    },
    responses: {
      201: {
        description: create.answerDescription ?? 'The integration, connected',
        schema: { type: 'object', properties: { ...CREATED_FIELDS, ...create.answerFields } },
      },
    },
    handler: connectHandler(provider, create),
  });
}

/** The type-specific create routes: one for each provider that has one, in the list's order. */
export const TYPED_CREATE_ROUTES: RouteDefinition<IntegrationRouteServices>[] = providers().flatMap(
  (provider) => (provider.create ? [typedCreateRoute(provider, provider.create)] : []),
);
