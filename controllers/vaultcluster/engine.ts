import type { VaultClusterPhase, VaultClusterSpec, VaultClusterStatus } from '../../crds/vault-cluster.js';
import { setCondition } from '../runtime/conditions.js';
import type { Condition } from '../../control-plane/types.js';
import type { InitializeOptions } from '../../vault/vault-engine.js';

export const DEFAULT_SHARES = 5;
export const DEFAULT_THRESHOLD = 3;

/** What the controller found in the data plane for one cluster. */
export interface ClusterObservation {
  initialized: boolean;
  sealed: boolean;
  totalSecrets: number;
  storageBytes: number;
}

export const REASONS = {
  Unsealed: 'Unsealed',
  Sealed: 'Sealed',
  NotInitialized: 'NotInitialized',
  InvalidSpec: 'InvalidSpec',
} as const;

/** Why the spec cannot be served, or undefined when it can. */
export function specProblem(spec: VaultClusterSpec | undefined): string | undefined {
  if (!spec) return 'spec is required';
  const shares = spec.shares ?? DEFAULT_SHARES;
  const threshold = spec.threshold ?? DEFAULT_THRESHOLD;
  if (threshold > shares) return `spec.threshold (${threshold}) must not exceed spec.shares (${shares})`;
  if (shares > 1 && threshold < 2) return 'spec.threshold must be at least 2 when there are several shares';
  const { defaultLeaseTtlSeconds, maxLeaseTtlSeconds } = spec.settings ?? {};
  if (
    defaultLeaseTtlSeconds !== undefined &&
    maxLeaseTtlSeconds !== undefined &&
    defaultLeaseTtlSeconds > maxLeaseTtlSeconds
  ) {
    return 'spec.settings.defaultLeaseTtlSeconds must not exceed maxLeaseTtlSeconds';
  }
  return undefined;
}

/**
 * What a reconcile does about a cluster's initialisation: refuse a spec it cannot serve while
 * nothing is initialised (an initialised cluster keeps serving whatever its spec now says),
 * initialise a cluster that unseals itself, or nothing. A cluster without autoUnseal is left
 * alone: its unseal keys would have no one to receive them.
 */
export function initialisationStep(
  spec: VaultClusterSpec | undefined,
  initialized: boolean,
): { refuse: string } | { initialize: InitializeOptions } | undefined {
  if (initialized) return undefined;
  const problem = specProblem(spec);
  if (problem) return { refuse: problem };
  if (!spec!.autoUnseal) return undefined;
  return {
    initialize: {
      shares: spec!.shares ?? DEFAULT_SHARES,
      threshold: spec!.threshold ?? DEFAULT_THRESHOLD,
      autoUnseal: true,
      defaultLeaseTtlSeconds: spec!.settings?.defaultLeaseTtlSeconds,
      maxLeaseTtlSeconds: spec!.settings?.maxLeaseTtlSeconds,
    },
  };
}

const MEBIBYTE = 1024 * 1024;

/** The status a cluster should carry given what the data plane says. */
export function desiredStatus(
  current: VaultClusterStatus | undefined,
  observation: ClusterObservation,
  context: { generation: number | undefined; version: string; apiAddress: string; now: Date },
): VaultClusterStatus {
  let phase: VaultClusterPhase;
  let ready: Omit<Condition, 'lastTransitionTime' | 'type'>;
  if (!observation.initialized) {
    phase = 'sealed';
    ready = {
      status: 'False',
      reason: REASONS.NotInitialized,
      message:
        'a cluster without autoUnseal is initialised only through POST /api/v1/vault, which returns its unseal keys once; set spec.autoUnseal to true to let the operator initialise it',
    };
  } else if (observation.sealed) {
    phase = 'sealed';
    ready = {
      status: 'False',
      reason: REASONS.Sealed,
      message: 'unseal it with POST /api/v1/vault/<id>/unseal',
    };
  } else {
    phase = 'running';
    ready = { status: 'True', reason: REASONS.Unsealed, message: 'the cluster is unsealed and serving' };
  }
  return {
    phase,
    sealed: phase !== 'running',
    version: context.version,
    apiAddress: context.apiAddress,
    totalSecrets: observation.totalSecrets,
    storageUsedMb: Math.ceil(observation.storageBytes / MEBIBYTE),
    observedGeneration: context.generation,
    conditions: setCondition(
      current?.conditions,
      { type: 'Ready', ...ready, observedGeneration: context.generation },
      context.now,
    ),
  };
}
