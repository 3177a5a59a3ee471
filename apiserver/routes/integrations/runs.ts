/**
 * The runs of an integration: tests (`POST /:id/test` → 202, then `GET /:id/test/:test_id`),
 * codehost syncs, and health.
 */
import { readHealth } from '../../../integrations/health.js';
import { readSync, readTest, startSync, startTest } from '../../../integrations/runs.js';
import { notFound, unprocessable } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import {
  ID_PARAMS,
  readIntegration,
  servicesOf,
  type IntegrationRouteServices,
} from './integration-resources.js';

const RUN_STATUS = { type: 'string', enum: ['in-progress', 'passed', 'failed'] } as const;

const TEST_RESULT = {
  type: 'object',
  properties: {
    test_id: { type: 'string' },
    integration_id: { type: 'string', format: 'uuid' },
    status: RUN_STATUS,
    result: {
      type: ['object', 'null'],
      properties: {
        connection: { type: 'string' },
        authentication: { type: 'string' },
        permissions: { type: 'string' },
        latency_ms: { type: 'integer' },
      },
    },
    errors: { type: 'array', items: { type: 'string' } },
    started_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const satisfies JsonSchema;

const SYNC_RESULT = {
  type: 'object',
  properties: {
    sync_id: { type: 'string' },
    integration_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['in-progress', 'success', 'failed'] },
    repositories: { type: 'array', items: { type: 'string' } },
    full_sync: { type: 'boolean' },
    errors: { type: 'array', items: { type: 'string' } },
    started_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const satisfies JsonSchema;

const HEALTH = {
  type: 'object',
  properties: {
    integration_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['healthy', 'degraded', 'unhealthy'] },
    last_sync: { type: ['string', 'null'], format: 'date-time' },
    sync_status: { type: 'string', enum: ['success', 'failed', 'in-progress'] },
    error_count: { type: 'integer' },
    recent_errors: { type: 'array', items: { type: 'string' } },
    uptime_percent: { type: 'number' },
    average_response_time_ms: { type: 'integer' },
    event_queue_size: { type: 'integer' },
  },
} as const satisfies JsonSchema;

const base = { area: 'integrations', auth: 'authenticated', tags: ['integrations'] } as const;
const read = ['integrations:read'];
const write = ['integrations:write'];

async function testIntegration(
  ctx: AuthenticatedContext<{ params: { id: string } }, IntegrationRouteServices>,
) {
  const integration = await readIntegration(ctx.store, tenantNamespace(ctx.principal), ctx.params.id);
  const test = await startTest(servicesOf(ctx), integration);
  const { test_id, integration_id, status, started_at } = test;
  return { status: 202, data: { test_id, integration_id, status, started_at } };
}

async function getIntegrationTest({
  params,
  principal,
  database,
  store,
}: AuthenticatedContext<{ params: { id: string; test_id: string } }, IntegrationRouteServices>) {
  await readIntegration(store, tenantNamespace(principal), params.id);
  const test = await readTest({ database }, params.id, params.test_id);
  if (test === undefined) throw notFound(`test ${params.test_id} of integration ${params.id} does not exist`);
  return { data: test };
}

async function syncCodehost(
  ctx: AuthenticatedContext<
    { params: { id: string }; body: { repositories?: string[]; full_sync?: boolean } },
    IntegrationRouteServices
  >,
) {
  const integration = await readIntegration(ctx.store, tenantNamespace(ctx.principal), ctx.params.id);
  if (integration.spec?.type !== 'codehost') {
    throw unprocessable(`integration ${ctx.params.id} is of type ${integration.spec?.type}, not codehost`);
  }
  const configured = (integration.spec.configuration?.repositories as string[] | undefined) ?? [];
  const sync = await startSync(servicesOf(ctx), integration, {
    repositories: ctx.body.repositories ?? configured,
    fullSync: ctx.body.full_sync ?? false,
  });
  return { status: 202, data: { sync_id: sync.sync_id, status: sync.status } };
}

async function getCodehostSync({
  params,
  principal,
  database,
  store,
}: AuthenticatedContext<{ params: { id: string; sync_id: string } }, IntegrationRouteServices>) {
  await readIntegration(store, tenantNamespace(principal), params.id);
  const sync = await readSync({ database }, params.id, params.sync_id);
  if (sync === undefined) throw notFound(`sync ${params.sync_id} of integration ${params.id} does not exist`);
  return { data: sync };
}

async function getIntegrationHealth({
  params,
  principal,
  database,
  store,
}: AuthenticatedContext<{ params: { id: string } }, IntegrationRouteServices>) {
  const integration = await readIntegration(store, tenantNamespace(principal), params.id);
  return { data: await readHealth(database, integration) };
}

/** Tests, codehost syncs and health. */
export const INTEGRATION_RUN_ROUTES: RouteDefinition<IntegrationRouteServices>[] = [
  defineRoute<{ params: { id: string } }, IntegrationRouteServices>({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/:id/test',
    scopes: write,
    summary: 'Test an integration',
    description: 'Checks connection, authentication and permissions with the provider in the background.',
    request: { params: ID_PARAMS },
    responses: {
      202: {
        description: 'The test, in progress',
        schema: {
          type: 'object',
          properties: {
            test_id: TEST_RESULT.properties.test_id,
            integration_id: TEST_RESULT.properties.integration_id,
            status: TEST_RESULT.properties.status,
            started_at: TEST_RESULT.properties.started_at,
          },
        },
      },
    },
    handler: testIntegration,
  }),
  defineRoute<{ params: { id: string; test_id: string } }, IntegrationRouteServices>({
    ...base,
    method: 'get',
    path: '/api/v1/integrations/:id/test/:test_id',
    scopes: read,
    summary: 'Read a test of an integration',
    request: {
      params: {
        type: 'object',
        properties: { ...ID_PARAMS.properties, test_id: { type: 'string', maxLength: 64 } },
      },
    },
    responses: { 200: { description: 'The test', schema: TEST_RESULT } },
    handler: getIntegrationTest,
  }),
  defineRoute<
    { params: { id: string }; body: { repositories?: string[]; full_sync?: boolean } },
    IntegrationRouteServices
  >({
    ...base,
    method: 'post',
    path: '/api/v1/integrations/:id/codehost/sync',
    scopes: write,
    summary: 'Synchronise the repositories of a codehost integration',
    description:
      'With full_sync, every repository the installation reaches; otherwise the repositories named. ' +
      'Runs in the background; GET /integrations/:id/codehost/sync/:sync_id reads the outcome.',
    request: {
      params: ID_PARAMS,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          repositories: {
            type: 'array',
            maxItems: 100,
            items: { type: 'string', pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' },
          },
          full_sync: { type: 'boolean', default: false },
        },
      },
    },
    responses: {
      202: {
        description: 'The sync, in progress',
        schema: {
          type: 'object',
          properties: { sync_id: SYNC_RESULT.properties.sync_id, status: SYNC_RESULT.properties.status },
        },
      },
    },
    handler: syncCodehost,
  }),
  defineRoute<{ params: { id: string; sync_id: string } }, IntegrationRouteServices>({
    ...base,
    method: 'get',
    path: '/api/v1/integrations/:id/codehost/sync/:sync_id',
    scopes: read,
    summary: 'Read a codehost sync',
    request: {
      params: {
        type: 'object',
        properties: { ...ID_PARAMS.properties, sync_id: { type: 'string', maxLength: 64 } },
      },
    },
    responses: { 200: { description: 'The sync', schema: SYNC_RESULT } },
    handler: getCodehostSync,
  }),
  defineRoute<{ params: { id: string } }, IntegrationRouteServices>({
    ...base,
    method: 'get',
    path: '/api/v1/integrations/:id/health',
    scopes: read,
    summary: 'The health of an integration',
    description: 'Computed from its phase, its last 20 tests, syncs and forwarded events.',
    request: { params: ID_PARAMS },
    responses: { 200: { description: 'Health', schema: HEALTH } },
    handler: getIntegrationHealth,
  }),
];
