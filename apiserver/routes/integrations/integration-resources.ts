import type { PublicUrl } from '../../../config/http.js';
import { providerTypes } from '../../../integrations/providers/index.js';
import type { IntegrationsConfig } from '../../../config/integrations.js';
/**
 * What the integration routes share: the REST shapes, reading an integration of the caller's
 * organization, and creating one (credentials first, then the object).
 */
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import {
  INTEGRATION,
  type Integration,
  type IntegrationPhase,
  type IntegrationType,
} from '../../../crds/integration.js';
import type { BackgroundRuns } from '../../../integrations/background-runs.js';
import type { IntegrationServices } from '../../../integrations/connection.js';
import { presentedStatus, readActivity, type IntegrationActivity } from '../../../integrations/activity.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import { newIntegrationId } from '../../../integrations/ids.js';
import { INTEGRATION_CREDENTIALS_FINALIZER } from '../../../controllers/integration/index.js';
import {
  deleteCredentials,
  DuplicateAccountError,
  storeCredentials,
  type IntegrationCredentials,
} from '../../../integrations/credentials.js';
import type { IntegrationProblem } from '../../../controllers/integration/index.js';
import type { ProviderError } from '../../../integrations/providers/provider.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import { ApiError, badRequest, conflict, unprocessable } from '../../errors.js';
import type { PlacedFamily } from '../../routing/resource-handlers.js';
import { findInNamespace, type OrganizationLookup } from '../../routing/tenancy.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import type { RequestShape, RouteContext } from '../../routing/route.js';
import type { Principal } from '../../../accounts/principal.js';
import { UPDATED_AT_ANNOTATION } from '../../../crds/annotations.js';

/** What the integration routes need beyond the core services. */
export interface IntegrationRouteServices {
  /** The platform key credentials are sealed under. */
  platformKey: Buffer;
  /** Where tests and syncs run after their 202. */
  integrationRuns: BackgroundRuns;
  integrations: IntegrationsConfig;
  publicUrl: PublicUrl;
}

/** A handler's context in the integrations area. */
export type IntegrationRouteContext = Pick<
  RouteContext<RequestShape, Principal | undefined, IntegrationRouteServices>,
  'store' | 'database' | 'now' | 'platformKey' | 'integrationRuns' | 'integrations' | 'publicUrl'
>;

export const PHASES: readonly IntegrationPhase[] = [
  'pending',
  'connected',
  'disconnected',
  'error',
  'expired',
];

export const ID_PARAMS = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
} as const;

export const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
} as const satisfies JsonSchema;

export const INTEGRATION_SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    type: { type: 'string', enum: providerTypes() },
    status: { type: 'string', enum: PHASES },
    configuration: { type: 'object' },
    enabled: { type: 'boolean' },
    last_sync: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

export const INTEGRATION_DETAIL = {
  type: 'object',
  properties: {
    ...INTEGRATION_SUMMARY.properties,
    credentials_valid: { type: 'boolean' },
    last_error: { type: ['string', 'null'] },
    error_count: { type: 'integer' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

/** Keys of the configuration that are bookkeeping, not settings a caller gave or may change. */
const INTERNAL_CONFIGURATION = ['hooks'];

export function publicConfiguration(integration: Integration): Record<string, unknown> {
  const configuration = { ...integration.spec?.configuration };
  for (const key of INTERNAL_CONFIGURATION) delete configuration[key];
  return configuration;
}

export function restSummary(integration: Integration, activity: IntegrationActivity, now: Date) {
  const spec = integration.spec!;
  const status = presentedStatus(integration, activity);
  return {
    id: integration.metadata.name,
    name: spec.name,
    type: spec.type,
    status: status.phase ?? ('pending' as IntegrationPhase),
    configuration: publicConfiguration(integration),
    enabled: spec.enabled ?? true,
    last_sync: status.lastSync ?? null,
    created_at: integration.metadata.creationTimestamp ?? now.toISOString(),
  };
}

export function restDetail(integration: Integration, activity: IntegrationActivity, now: Date) {
  const summary = restSummary(integration, activity, now);
  return {
    ...summary,
    credentials_valid: summary.status === 'connected',
    last_error: integration.status?.lastError ?? null,
    error_count: integration.status?.errorCount ?? 0,
    updated_at: integration.metadata.annotations?.[UPDATED_AT_ANNOTATION] ?? summary.created_at,
  };
}

/** What the data plane adds to one integration's status. */
export async function activityOf(
  database: DataPlane,
  integration: Integration,
): Promise<IntegrationActivity> {
  const id = integration.metadata.name;
  return (await readActivity(database, [id])).get(id) ?? {};
}

/** The caller's integration, or 404 (also for another organization's, and for a deleted one). */
export async function readIntegration(
  store: ObjectStore,
  namespace: string,
  id: string,
): Promise<Integration> {
  return findInNamespace(store, namespace, INTEGRATIONS, id, `integration ${id} does not exist`);
}

/** How an integration is found in an organization: by its id, which is its object's name. */
export const INTEGRATIONS: OrganizationLookup<Integration> = { type: INTEGRATION, noun: 'integration' };

/** How a new integration is placed: a uuid id, and a 409 naming the integration that holds its name. */
export const NEW_INTEGRATIONS = {
  lookup: INTEGRATIONS,
  newId: newIntegrationId,
  nameCheck: checkNameFree,
} as const satisfies PlacedFamily<Integration>;

function fieldErrors(problems: readonly IntegrationProblem[], rule: string) {
  return problems.map((problem) => ({ in: 'body', field: problem.field, rule, message: problem.message }));
}

/** 422 naming every configuration problem. */
export function invalidConfiguration(problems: readonly IntegrationProblem[]): ApiError {
  return unprocessable(problems.map((problem) => problem.message).join('; '), {
    details: { fields: fieldErrors(problems, 'configuration') },
  });
}

/** 400 naming every credentials problem. */
export function invalidCredentials(problems: readonly IntegrationProblem[]): ApiError {
  return badRequest(problems.map((problem) => problem.message).join('; '), {
    code: 'invalid_credentials',
    details: { fields: fieldErrors(problems, 'credentials') },
  });
}

/** The answer to a provider's refusal at a type-specific create. */
export function providerRefusal(error: ProviderError, fallbackField: string): ApiError {
  if (error.failure === 'unreachable') {
    return new ApiError(502, 'provider_unreachable', error.message);
  }
  return invalidCredentials([{ field: error.field ?? fallbackField, message: error.message }]);
}

/** 409 when the organization already has an integration with this display name. */
export async function checkNameFree(
  store: ObjectStore,
  namespace: string,
  name: string,
  exceptId?: string,
): Promise<void> {
  const { items } = await store.list<Integration>(INTEGRATION, { namespace });
  const taken = items.find((item) => item.spec?.name === name && item.metadata.name !== exceptId);
  if (taken) {
    throw conflict(`an integration named ${JSON.stringify(name)} already exists`, {
      details: { conflicting_integration: { id: taken.metadata.name, type: taken.spec?.type } },
    });
  }
}

export function duplicateAccount(type: IntegrationType): ApiError {
  return conflict(`a ${type} integration for this provider account already exists in this organization`);
}

export interface NewIntegration {
  id: string;
  namespace: string;
  type: IntegrationType;
  name: string;
  configuration: Record<string, unknown>;
  credentials: IntegrationCredentials;
  /** Known when the provider verified the credentials already. */
  accountKey: string | null;
  /** The provider accepted the credentials just before this create. */
  verified: boolean;
}

/**
 * Stores the credentials, then creates the object (with the finalizer that removes them);
 * nothing is left behind when either step fails.
 */
export async function createIntegration(
  services: IntegrationServices & { store: ObjectStore },
  entry: NewIntegration,
): Promise<Integration> {
  let credentialsRef: string;
  try {
    credentialsRef = await storeCredentials(services.database, services.platformKey, {
      integrationId: entry.id,
      namespace: entry.namespace,
      type: entry.type,
      accountKey: entry.accountKey,
      credentials: entry.credentials,
      now: services.now(),
      verified: entry.verified,
    });
  } catch (error) {
    if (error instanceof DuplicateAccountError) throw duplicateAccount(entry.type);
    throw error;
  }
  try {
    return await services.store.create<Integration>(INTEGRATION, {
      apiVersion: API_VERSION,
      kind: INTEGRATION.kind,
      metadata: {
        name: entry.id,
        namespace: entry.namespace,
        finalizers: [INTEGRATION_CREDENTIALS_FINALIZER],
      },
      spec: {
        type: entry.type,
        name: entry.name,
        configuration: entry.configuration,
        credentialsRef,
        enabled: true,
      },
    });
  } catch (error) {
    await deleteCredentials(services.database, entry.id);
    throw error;
  }
}

/** The services of the integration code, from a route's context. */
export function servicesOf(ctx: IntegrationRouteContext) {
  return {
    store: ctx.store,
    runs: ctx.integrationRuns,
    database: ctx.database,
    platformKey: ctx.platformKey,
    config: ctx.integrations,
    now: ctx.now,
  };
}
