import { describe, expect, it } from 'vitest';
import { computeHealth, type HealthInputs } from '../../integrations/health.js';
import type { Integration, IntegrationStatus } from '../../crds/integration.js';

function integration(status: IntegrationStatus): Integration {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind: 'Integration',
    metadata: { name: 'b6a1c2d3-0000-4000-8000-000000000001', namespace: 'org-1', generation: 1 },
    spec: { type: 'chat', name: 'team' },
    status,
  };
}

function inputs(status: IntegrationStatus, overrides: Partial<HealthInputs> = {}): HealthInputs {
  return {
    integration: integration(status),
    activity: {},
    samples: [],
    failedEvents: 0,
    queuedEvents: 0,
    ...overrides,
  };
}

const ok = (at: string, latencyMs = 100) => ({ at, ok: true, latencyMs });
const failed = (at: string, error: string) => ({ at, ok: false, error });

describe('computeHealth', () => {
  it.each([
    [
      'healthy: connected with every check passing',
      inputs({ phase: 'connected' }, { samples: [ok('1'), ok('2')] }),
      'healthy',
      100,
    ],
    ['healthy: connected and never checked', inputs({ phase: 'connected' }), 'healthy', 100],
    [
      'degraded: connected but one check in two failed',
      inputs({ phase: 'connected' }, { samples: [ok('1'), failed('2', 'timeout')] }),
      'degraded',
      50,
    ],
    [
      'degraded: connected but the last sync failed',
      inputs({ phase: 'connected' }, { lastSyncRun: { status: 'failed' } }),
      'degraded',
      100,
    ],
    ['unhealthy: credentials rejected', inputs({ phase: 'error', lastError: 'refused' }), 'unhealthy', 0],
    ['unhealthy: credentials expired', inputs({ phase: 'expired', lastError: 'expired' }), 'unhealthy', 0],
    ['unhealthy: disabled', inputs({ phase: 'disconnected' }, { samples: [ok('1')] }), 'unhealthy', 100],
  ])('%s', (_case, given, status, uptime) => {
    const health = computeHealth(given);
    expect(health.status).toBe(status);
    expect(health.uptime_percent).toBe(uptime);
  });

  it('averages latencies, lists the newest distinct errors first, and counts queued and failed events', () => {
    const health = computeHealth(
      inputs(
        { phase: 'error', lastError: 'refused', errorCount: 2, lastSync: '2026-01-01T00:00:00.000Z' },
        {
          samples: [
            ok('2026-01-01T00:00:01Z', 100),
            failed('2026-01-01T00:00:02Z', 'timeout'),
            ok('2026-01-01T00:00:03Z', 300),
          ],
          failedEvents: 3,
          queuedEvents: 4,
        },
      ),
    );
    expect(health).toEqual({
      integration_id: 'b6a1c2d3-0000-4000-8000-000000000001',
      status: 'unhealthy',
      last_sync: '2026-01-01T00:00:00.000Z',
      sync_status: 'failed',
      error_count: 5,
      recent_errors: ['refused', 'timeout'],
      uptime_percent: 66.7,
      average_response_time_ms: 200,
      event_queue_size: 4,
    });
  });

  it('looks only at the 20 newest checks', () => {
    const old = Array.from({ length: 30 }, (_, index) =>
      failed(`2026-01-01T00:00:${String(index).padStart(2, '0')}Z`, 'old'),
    );
    const recent = Array.from({ length: 20 }, (_, index) =>
      ok(`2026-01-02T00:00:${String(index).padStart(2, '0')}Z`),
    );
    expect(
      computeHealth(inputs({ phase: 'connected' }, { samples: [...old, ...recent] })).uptime_percent,
    ).toBe(100);
  });
});
