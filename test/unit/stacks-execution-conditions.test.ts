import { describe, expect, it } from 'vitest';
import type { StackExecutionStatus } from '../../crds/stacks.js';
import { executionConditions } from '../../controllers/stacks/engine.js';

/** An execution read as kstatus reads a Job: Ready once completed, Stalled once failed. */

const NOW = new Date('2026-03-01T09:00:00Z');

describe('executionConditions', () => {
  it.each([
    {
      state: 'running' as const,
      ready: { status: 'False', reason: 'Running' },
      reconciling: { status: 'True', reason: 'Running' },
      stalled: { status: 'False', reason: 'Progressing' },
    },
    {
      state: 'completed' as const,
      ready: { status: 'True', reason: 'Completed', message: 'every step is done' },
      reconciling: { status: 'False', reason: 'Finished' },
      stalled: { status: 'False', reason: 'Progressing' },
    },
    {
      state: 'failed' as const,
      error: 'db: the server refused',
      ready: { status: 'False', reason: 'StepFailed', message: 'db: the server refused' },
      reconciling: { status: 'False', reason: 'Finished' },
      stalled: { status: 'True', reason: 'StepFailed', message: 'db: the server refused' },
    },
  ])('$state: Ready $ready.status, Reconciling $reconciling.status, Stalled $stalled.status', (row) => {
    const status: StackExecutionStatus = {
      status: row.state,
      phase: 'infrastructure',
      ...(row.error ? { error: row.error } : {}),
    };
    const { conditions } = executionConditions(status, 3, NOW);
    const of = (type: string) => conditions?.find((condition) => condition.type === type);
    expect(of('Ready')).toMatchObject({ ...row.ready, observedGeneration: 3 });
    expect(of('Reconciling')).toMatchObject({ ...row.reconciling, observedGeneration: 3 });
    expect(of('Stalled')).toMatchObject({ ...row.stalled, observedGeneration: 3 });
    expect(conditions?.[0]?.type).toBe('Ready');
  });

  it('keeps the time Ready last changed while its status stays', () => {
    const running = executionConditions({ status: 'running' }, 1, NOW);
    const later = executionConditions({ ...running, phase: 'secrets' }, 1, new Date('2026-03-01T09:05:00Z'));
    const ready = later.conditions?.find((condition) => condition.type === 'Ready');
    expect(ready?.lastTransitionTime).toBe(NOW.toISOString());
    expect(ready?.message).toBe('the secrets phase is running');
  });
});
