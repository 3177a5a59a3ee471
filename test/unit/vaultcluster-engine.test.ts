import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHARES,
  DEFAULT_THRESHOLD,
  desiredStatus,
  initialisationStep,
  specProblem,
} from '../../controllers/vaultcluster/engine.js';
import type { VaultClusterSpec } from '../../crds/vault-cluster.js';

const NOW = new Date('2026-03-01T09:00:00Z');

const spec = (fields: Partial<VaultClusterSpec> = {}): VaultClusterSpec => ({ name: 'keys', ...fields });

describe('vault cluster spec', () => {
  it.each([
    ['no spec', undefined, 'spec is required'],
    ['the defaults', spec(), undefined],
    ['one share of one', spec({ shares: 1, threshold: 1 }), undefined],
    ['a threshold above the shares', spec({ shares: 2, threshold: 3 }), 'must not exceed spec.shares (2)'],
    ['a threshold of one among several', spec({ shares: 3, threshold: 1 }), 'at least 2'],
    [
      'a default lease above the maximum',
      spec({ settings: { defaultLeaseTtlSeconds: 120, maxLeaseTtlSeconds: 60 } }),
      'must not exceed maxLeaseTtlSeconds',
    ],
  ])('%s: %s', (_case, given, problem) => {
    if (problem === undefined) expect(specProblem(given)).toBeUndefined();
    else expect(specProblem(given)).toContain(problem);
  });
});

describe('vault cluster initialisation', () => {
  it.each([
    ['an initialised cluster', spec({ autoUnseal: true }), true, undefined],
    [
      'an initialised cluster whose spec is now impossible',
      spec({ shares: 2, threshold: 3 }),
      true,
      undefined,
    ],
    ['a cluster without autoUnseal', spec(), false, undefined],
    [
      'an impossible spec',
      spec({ shares: 2, threshold: 3, autoUnseal: true }),
      false,
      { refuse: 'spec.threshold (3) must not exceed spec.shares (2)' },
    ],
    [
      'an auto-unseal cluster, with the defaults',
      spec({ autoUnseal: true }),
      false,
      {
        initialize: {
          shares: DEFAULT_SHARES,
          threshold: DEFAULT_THRESHOLD,
          autoUnseal: true,
          defaultLeaseTtlSeconds: undefined,
          maxLeaseTtlSeconds: undefined,
        },
      },
    ],
    [
      'an auto-unseal cluster, as its spec says',
      spec({
        autoUnseal: true,
        shares: 1,
        threshold: 1,
        settings: { defaultLeaseTtlSeconds: 60, maxLeaseTtlSeconds: 600 },
      }),
      false,
      {
        initialize: {
          shares: 1,
          threshold: 1,
          autoUnseal: true,
          defaultLeaseTtlSeconds: 60,
          maxLeaseTtlSeconds: 600,
        },
      },
    ],
  ])('%s', (_case, given, initialized, step) => {
    expect(initialisationStep(given, initialized)).toEqual(step);
  });
});

describe('vault cluster status', () => {
  it.each([
    [false, true, 'sealed', 'False', 'NotInitialized'],
    [true, true, 'sealed', 'False', 'Sealed'],
    [true, false, 'running', 'True', 'Unsealed'],
  ])('initialised %s, sealed %s: %s, Ready %s (%s)', (initialized, sealed, phase, ready, reason) => {
    const status = desiredStatus(
      undefined,
      { initialized, sealed, totalSecrets: 2, storageBytes: 1024 * 1024 + 1 },
      { generation: 4, version: '1.0.0', apiAddress: 'http://vault.test/org/keys', now: NOW },
    );
    expect(status).toMatchObject({
      phase,
      sealed: phase !== 'running',
      version: '1.0.0',
      apiAddress: 'http://vault.test/org/keys',
      totalSecrets: 2,
      storageUsedMb: 2,
      observedGeneration: 4,
    });
    expect(status.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: ready,
      reason,
      observedGeneration: 4,
    });
  });
});
