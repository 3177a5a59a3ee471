/**
 * The health of an integration, from what has been recorded about it: its phase, its recent
 * tests and syncs, and the events forwarded to it.
 */
import { presentedStatus, readActivity, type IntegrationActivity } from './activity.js';
import type { Integration } from '../crds/integration.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { IntegrationSyncStatus } from '../data-plane/schema.js';

/** Recent runs and events the figures are computed over. */
const WINDOW = 20;
const RECENT_ERRORS = 5;
/** Below this share of successful checks, a connected integration is degraded. */
const HEALTHY_UPTIME_PERCENT = 90;

export interface IntegrationHealth {
  integration_id: string;
  status: 'healthy' | 'degraded' | 'unhealthy';
  last_sync: string | null;
  sync_status: IntegrationSyncStatus;
  error_count: number;
  recent_errors: string[];
  uptime_percent: number;
  average_response_time_ms: number;
  event_queue_size: number;
}

/** One recorded check: a test, a sync or a forwarded event. */
export interface HealthSample {
  at: string;
  ok: boolean;
  latencyMs?: number;
  error?: string;
}

export interface HealthInputs {
  integration: Integration;
  activity: IntegrationActivity;
  samples: HealthSample[];
  lastSyncRun?: { status: IntegrationSyncStatus };
  failedEvents: number;
  queuedEvents: number;
}

/** Pure: the health figures of the inputs. */
export function computeHealth(inputs: HealthInputs): IntegrationHealth {
  const { integration, samples } = inputs;
  const status = presentedStatus(integration, inputs.activity);
  const phase = status.phase ?? 'pending';
  const recent = [...samples].sort((a, b) => b.at.localeCompare(a.at)).slice(0, WINDOW);
  const succeeded = recent.filter((sample) => sample.ok).length;
  const uptime = recent.length === 0 ? (phase === 'connected' ? 100 : 0) : (100 * succeeded) / recent.length;
  const latencies = recent.flatMap((sample) => (sample.latencyMs === undefined ? [] : [sample.latencyMs]));
  const errors = recent.flatMap((sample) => (sample.error === undefined ? [] : [sample.error]));
  if (status.lastError !== undefined && phase !== 'connected') errors.unshift(status.lastError);
  const syncStatus: IntegrationSyncStatus =
    inputs.lastSyncRun?.status ??
    (phase === 'connected' ? 'success' : phase === 'pending' ? 'in-progress' : 'failed');
  let health: IntegrationHealth['status'] = 'healthy';
  if (phase !== 'connected') health = 'unhealthy';
  else if (uptime < HEALTHY_UPTIME_PERCENT || syncStatus === 'failed') health = 'degraded';
  return {
    integration_id: integration.metadata.name,
    status: health,
    last_sync: status.lastSync ?? null,
    sync_status: syncStatus,
    error_count: (status.errorCount ?? 0) + inputs.failedEvents,
    recent_errors: [...new Set(errors)].slice(0, RECENT_ERRORS),
    uptime_percent: Math.round(uptime * 10) / 10,
    average_response_time_ms:
      latencies.length === 0
        ? 0
        : Math.round(latencies.reduce((sum, value) => sum + value, 0) / latencies.length),
    event_queue_size: inputs.queuedEvents,
  };
}

interface EventCounts {
  failed: number;
  queued: number;
  samples: HealthSample[];
}

/** What the events forwarded to the integration say (table `integration_events`). */
async function eventCounts(database: DataPlane, integrationId: string): Promise<EventCounts> {
  const rows = await database.kysely
    .selectFrom('integration_events')
    .select(['status', 'sent_at', 'last_error'])
    .where('integration_id', '=', integrationId)
    .orderBy('created_at', 'desc')
    .limit(WINDOW * 5)
    .execute();
  let failed = 0;
  let queued = 0;
  const samples: HealthSample[] = [];
  for (const row of rows) {
    if (row.status === 'pending' || row.status === 'sending') queued += 1;
    if (row.status === 'failed' || row.status === 'dead') failed += 1;
    if (row.sent_at !== null && row.status !== 'pending' && row.status !== 'sending') {
      samples.push({
        at: row.sent_at,
        ok: row.status === 'success',
        ...(row.last_error === null ? {} : { error: row.last_error }),
      });
    }
  }
  return { failed, queued, samples };
}

/** Reads what has been recorded about the integration and computes its health. */
export async function readHealth(database: DataPlane, integration: Integration): Promise<IntegrationHealth> {
  const id = integration.metadata.name;
  const tests = await database.kysely
    .selectFrom('integration_tests')
    .select(['status', 'result', 'errors', 'completed_at'])
    .where('integration_id', '=', id)
    .where('status', '!=', 'in-progress')
    .orderBy('started_at', 'desc')
    .limit(WINDOW)
    .execute();
  const lastSync = await database.kysely
    .selectFrom('integration_syncs')
    .select(['status'])
    .where('integration_id', '=', id)
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const events = await eventCounts(database, id);
  const testSamples = tests.map((test): HealthSample => {
    const errors = JSON.parse(test.errors) as string[];
    const latency =
      test.result === null ? undefined : (JSON.parse(test.result) as { latency_ms?: number }).latency_ms;
    return {
      at: test.completed_at ?? '',
      ok: test.status === 'passed',
      ...(latency === undefined ? {} : { latencyMs: latency }),
      ...(errors[0] === undefined ? {} : { error: errors[0] }),
    };
  });
  return computeHealth({
    integration,
    activity: (await readActivity(database, [id])).get(id) ?? {},
    samples: [...testSamples, ...events.samples],
    ...(lastSync === undefined ? {} : { lastSyncRun: lastSync }),
    failedEvents: events.failed,
    queuedEvents: events.queued,
  });
}
