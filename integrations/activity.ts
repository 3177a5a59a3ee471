/**
 * What the data plane knows about an integration beside its object: whether the API verified its
 * credentials when creating it, and when a codehost sync last succeeded. Readers fold it into the
 * status the controller wrote (`presentedStatus`), so an integration reads `connected` the moment
 * its create answered, before the controller has taken the verification over.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import type { Integration, IntegrationStatus } from '../crds/integration.js';

export interface IntegrationVerification {
  /** The generation of the object whose credentials the provider accepted. */
  generation: number;
  at: string;
  accountKey: string | null;
}

export interface IntegrationActivity {
  verification?: IntegrationVerification;
  /** When a codehost sync last completed successfully. */
  lastSyncAt?: string;
}

/** The activity of each of `integrationIds` (an id without any is absent from the map). */
export async function readActivity(
  database: DataPlane,
  integrationIds: readonly string[],
): Promise<Map<string, IntegrationActivity>> {
  const activity = new Map<string, IntegrationActivity>();
  if (integrationIds.length === 0) return activity;
  const entry = (id: string) => activity.get(id) ?? activity.set(id, {}).get(id)!;
  const verifications = await database.kysely
    .selectFrom('integration_credentials')
    .select(['integration_id', 'verified_generation', 'verified_at', 'account_key'])
    .where('integration_id', 'in', integrationIds)
    .where('verified_generation', 'is not', null)
    .execute();
  for (const row of verifications) {
    entry(row.integration_id).verification = {
      generation: row.verified_generation!,
      at: row.verified_at!,
      accountKey: row.account_key,
    };
  }
  const syncs = await database.kysely
    .selectFrom('integration_syncs')
    .select(['integration_id', (eb) => eb.fn.max('completed_at').as('last_sync_at')])
    .where('integration_id', 'in', integrationIds)
    .where('status', '=', 'success')
    .groupBy('integration_id')
    .execute();
  for (const row of syncs) {
    if (row.last_sync_at !== null) entry(row.integration_id).lastSyncAt = row.last_sync_at;
  }
  return activity;
}

/** The verification the controller has still to take over, if any. */
export function pendingVerification(
  integration: Integration,
  activity: IntegrationActivity,
): IntegrationVerification | undefined {
  const { verification } = activity;
  const generation = integration.metadata.generation;
  if (verification === undefined || verification.generation !== generation) return undefined;
  return integration.status?.observedGeneration === generation ? undefined : verification;
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/** The status as a reader should see it: the controller's, with what the data plane adds. */
export function presentedStatus(integration: Integration, activity: IntegrationActivity): IntegrationStatus {
  const status = integration.status ?? {};
  const verification = pendingVerification(integration, activity);
  const lastSync = later(later(status.lastSync, activity.lastSyncAt), verification?.at);
  return {
    ...status,
    ...(verification === undefined ? {} : { phase: 'connected' }),
    ...(verification?.accountKey == null ? {} : { accountKey: verification.accountKey }),
    ...(lastSync === undefined ? {} : { lastSync }),
  };
}
