/**
 * Integration tests and codehost syncs: started by the API (202), run in the background, and
 * recorded in `integration_tests` and `integration_syncs` for the API to read back.
 */
import { performance } from 'node:perf_hooks';
import type { Integration } from '../crds/integration.js';
import type { IntegrationRunStatus, IntegrationSyncStatus } from '../data-plane/schema.js';
import type { BackgroundRuns } from './background-runs.js';
import { providerContext, type IntegrationServices } from './connection.js';
import { readCredentials } from './credentials.js';
import { newSyncId, newTestId } from './ids.js';
import { accessToken, installationRepositories } from './providers/codehost.js';
import { PROVIDERS } from './providers/index.js';
import { ProviderError, type ProviderTestResult } from './providers/provider.js';

/** A test run as the API shows it. */
export interface IntegrationTestRecord {
  test_id: string;
  integration_id: string;
  status: IntegrationRunStatus;
  result: (Omit<ProviderTestResult, 'errors'> & { latency_ms: number }) | null;
  errors: string[];
  started_at: string;
  completed_at: string | null;
}

/** A codehost sync as the API shows it. */
export interface IntegrationSyncRecord {
  sync_id: string;
  integration_id: string;
  status: IntegrationSyncStatus;
  repositories: string[];
  full_sync: boolean;
  errors: string[];
  started_at: string;
  completed_at: string | null;
}

export interface RunServices extends IntegrationServices {
  runs: BackgroundRuns;
}

async function runTest(services: RunServices, integration: Integration, testId: string): Promise<void> {
  const id = integration.metadata.name;
  const spec = integration.spec!;
  const credentials = await readCredentials(services.database, services.platformKey, id);
  const started = performance.now();
  const outcome: ProviderTestResult =
    credentials === undefined
      ? {
          connection: 'skipped',
          authentication: 'failed',
          permissions: 'skipped',
          errors: ['no credentials are stored for this integration'],
        }
      : await PROVIDERS[spec.type].test(credentials, spec.configuration ?? {}, providerContext(services));
  const latency = Math.round(performance.now() - started);
  const { errors, ...result } = outcome;
  await services.database.kysely
    .updateTable('integration_tests')
    .set({
      status: errors.length === 0 ? 'passed' : 'failed',
      result: JSON.stringify({ ...result, latency_ms: latency }),
      errors: JSON.stringify(errors),
      completed_at: services.now().toISOString(),
    })
    .where('id', '=', testId)
    .execute();
}

/** Records a test `in-progress` and runs it in the background; answers the record. */
export async function startTest(
  services: RunServices,
  integration: Integration,
): Promise<IntegrationTestRecord> {
  const testId = newTestId();
  const startedAt = services.now().toISOString();
  await services.database.kysely
    .insertInto('integration_tests')
    .values({
      id: testId,
      integration_id: integration.metadata.name,
      namespace: integration.metadata.namespace ?? '',
      status: 'in-progress',
      result: null,
      errors: '[]',
      started_at: startedAt,
      completed_at: null,
    })
    .execute();
  services.runs.start(`integration test ${testId}`, () => runTest(services, integration, testId));
  return {
    test_id: testId,
    integration_id: integration.metadata.name,
    status: 'in-progress',
    result: null,
    errors: [],
    started_at: startedAt,
    completed_at: null,
  };
}

/** One test of one integration, or undefined. */
export async function readTest(
  services: Pick<IntegrationServices, 'database'>,
  integrationId: string,
  testId: string,
): Promise<IntegrationTestRecord | undefined> {
  const row = await services.database.kysely
    .selectFrom('integration_tests')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('id', '=', testId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    test_id: row.id,
    integration_id: row.integration_id,
    status: row.status,
    result: row.result === null ? null : (JSON.parse(row.result) as IntegrationTestRecord['result']),
    errors: JSON.parse(row.errors) as string[],
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}

export interface SyncRequest {
  repositories: string[];
  fullSync: boolean;
}

async function runSync(
  services: RunServices,
  integration: Integration,
  syncId: string,
  request: SyncRequest,
): Promise<void> {
  const id = integration.metadata.name;
  const configuration = integration.spec?.configuration ?? {};
  const context = providerContext(services);
  let status: IntegrationSyncStatus = 'success';
  let repositories: string[] = [];
  const errors: string[] = [];
  try {
    const credentials = await readCredentials(services.database, services.platformKey, id);
    const token = await accessToken(credentials ?? {}, configuration, context);
    const reachable =
      typeof configuration.installation_id === 'string'
        ? await installationRepositories(token, context)
        : ((configuration.repositories as string[] | undefined) ?? []);
    const wanted = request.fullSync ? reachable : request.repositories;
    repositories = wanted.filter((name) => reachable.includes(name));
    const missing = wanted.filter((name) => !reachable.includes(name));
    if (missing.length > 0) errors.push(`not accessible: ${missing.join(', ')}`);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    status = 'failed';
    errors.push(error.message);
  }
  const at = services.now().toISOString();
  await services.database.kysely
    .updateTable('integration_syncs')
    .set({
      status,
      repositories: JSON.stringify(repositories),
      errors: JSON.stringify(errors),
      completed_at: at,
    })
    .where('id', '=', syncId)
    .execute();
}

/** Records a codehost sync `in-progress` and runs it in the background; answers the record. */
export async function startSync(
  services: RunServices,
  integration: Integration,
  request: SyncRequest,
): Promise<IntegrationSyncRecord> {
  const syncId = newSyncId();
  const startedAt = services.now().toISOString();
  await services.database.kysely
    .insertInto('integration_syncs')
    .values({
      id: syncId,
      integration_id: integration.metadata.name,
      namespace: integration.metadata.namespace ?? '',
      status: 'in-progress',
      repositories: '[]',
      full_sync: request.fullSync ? 1 : 0,
      errors: '[]',
      started_at: startedAt,
      completed_at: null,
    })
    .execute();
  services.runs.start(`codehost sync ${syncId}`, () => runSync(services, integration, syncId, request));
  return {
    sync_id: syncId,
    integration_id: integration.metadata.name,
    status: 'in-progress',
    repositories: [],
    full_sync: request.fullSync,
    errors: [],
    started_at: startedAt,
    completed_at: null,
  };
}

/** One sync of one integration, or undefined. */
export async function readSync(
  services: Pick<IntegrationServices, 'database'>,
  integrationId: string,
  syncId: string,
): Promise<IntegrationSyncRecord | undefined> {
  const row = await services.database.kysely
    .selectFrom('integration_syncs')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('id', '=', syncId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    sync_id: row.id,
    integration_id: row.integration_id,
    status: row.status,
    repositories: JSON.parse(row.repositories) as string[],
    full_sync: row.full_sync === 1,
    errors: JSON.parse(row.errors) as string[],
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}
