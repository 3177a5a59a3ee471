import { describe, expect, it } from 'vitest';
import type { Integration, IntegrationStatus } from '../../crds/integration.js';
import {
  connectedStatus,
  disconnectedStatus,
  needsCheck,
  verifiedOutcome,
} from '../../controllers/integration/engine.js';
import type { ConnectionOutcome } from '../../integrations/connection.js';
import { pendingVerification, presentedStatus } from '../../integrations/activity.js';

const NOW = new Date('2026-03-01T09:00:00Z');

/** An integration at `generation` with the given status. */
function anIntegration(status?: IntegrationStatus, generation = 1): Integration {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind: 'Integration',
    metadata: { name: 'b6a1c2d3-0000-4000-8000-000000000001', namespace: 'org-1', generation },
    spec: { type: 'chat', name: 'team' },
    ...(status === undefined ? {} : { status }),
  };
}

const ready = (reason: string) => [
  {
    type: 'Ready',
    status: 'True',
    reason,
    message: 'm',
    lastTransitionTime: NOW.toISOString(),
    observedGeneration: 1,
  },
];

describe('needsCheck', () => {
  it.each([
    ['never checked', anIntegration(), true],
    ['checked at this generation', anIntegration({ phase: 'connected', observedGeneration: 1 }), false],
    ['changed since', anIntegration({ phase: 'connected', observedGeneration: 1 }, 2), true],
    ['disabled before', anIntegration({ phase: 'disconnected', observedGeneration: 1 }), true],
    [
      'unreachable last time',
      anIntegration({
        phase: 'error',
        observedGeneration: 1,
        conditions: [{ ...ready('ProviderUnreachable')[0]!, status: 'False' }],
      }),
      true,
    ],
  ])('%s: %s', (_case, integration, expected) => {
    expect(needsCheck(integration)).toBe(expected);
  });
});

describe('connectedStatus', () => {
  const outcome = (phase: ConnectionOutcome['phase']): ConnectionOutcome => ({
    phase,
    reason: phase === 'connected' ? 'Connected' : 'CredentialsRejected',
    message: phase === 'connected' ? 'ok' : 'the provider refused the token',
    transient: false,
  });

  it.each([
    ['a success', 'connected', 'True', NOW.toISOString(), 0, undefined],
    ['a refusal', 'error', 'False', '2026-02-01T00:00:00.000Z', 3, 'the provider refused the token'],
  ] as const)('after %s', (_case, phase, ready, lastSync, errorCount, lastError) => {
    const before = anIntegration({ lastSync: '2026-02-01T00:00:00.000Z', errorCount: 2 });
    const status = connectedStatus(before, outcome(phase), NOW);
    expect(status).toMatchObject({ phase, observedGeneration: 1, lastSync });
    expect(status.errorCount).toBe(phase === 'connected' ? 2 : errorCount);
    expect(status.lastError).toBe(lastError);
    expect(status.conditions?.[0]).toMatchObject({ type: 'Ready', status: ready, observedGeneration: 1 });
  });

  it('says disconnected while disabled', () => {
    expect(disconnectedStatus(anIntegration({ phase: 'connected' }), NOW)).toMatchObject({
      phase: 'disconnected',
      conditions: [{ type: 'Ready', status: 'False', reason: 'Disabled' }],
    });
  });
});

describe('the verification the API made at creation', () => {
  const verification = { generation: 1, at: '2026-03-01T08:59:59.000Z', accountKey: 'T9:chat' };

  it.each([
    ['not yet taken over', anIntegration(), { verification }, verification],
    ['taken over', anIntegration({ phase: 'connected', observedGeneration: 1 }), { verification }, undefined],
    ['for an older generation', anIntegration(undefined, 2), { verification }, undefined],
    ['absent', anIntegration(), {}, undefined],
  ])('is pending when %s', (_case, integration, activity, expected) => {
    expect(pendingVerification(integration, activity)).toEqual(expected);
  });

  it('reads as connected until the controller has taken it over, with the later of the syncs', () => {
    expect(
      presentedStatus(anIntegration(), { verification, lastSyncAt: '2026-03-01T09:30:00.000Z' }),
    ).toEqual({
      phase: 'connected',
      accountKey: 'T9:chat',
      lastSync: '2026-03-01T09:30:00.000Z',
    });
    expect(verifiedOutcome(anIntegration(), verification)).toEqual({
      phase: 'connected',
      reason: 'Connected',
      message: 'the chat provider accepted the credentials',
      accountKey: 'T9:chat',
      transient: false,
    });
  });
});
