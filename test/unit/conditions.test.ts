import { describe, expect, it } from 'vitest';
import { findCondition, isConditionTrue, setCondition } from '../../controllers/runtime/conditions.js';
import type { Condition } from '../../control-plane/types.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

function condition(overrides: Partial<Condition> = {}): Condition {
  return {
    type: 'Ready',
    status: 'False',
    reason: 'Provisioning',
    message: 'waiting',
    observedGeneration: 1,
    lastTransitionTime: t0.toISOString(),
    ...overrides,
  };
}

describe('setCondition', () => {
  it('keeps lastTransitionTime when only the reason or message changes', () => {
    const [ready] = setCondition(
      [condition()],
      { type: 'Ready', status: 'False', reason: 'StillWaiting', message: 'still', observedGeneration: 2 },
      t1,
    );
    expect(ready).toMatchObject({ reason: 'StillWaiting', observedGeneration: 2 });
    expect(ready!.lastTransitionTime).toBe(t0.toISOString());
  });

  it('moves lastTransitionTime when the status flips', () => {
    const [ready] = setCondition(
      [condition()],
      { type: 'Ready', status: 'True', reason: 'Available', message: '', observedGeneration: 1 },
      t1,
    );
    expect(ready!.lastTransitionTime).toBe(t1.toISOString());
  });

  it('keeps Ready first and the others in name order', () => {
    const conditions = setCondition(
      [condition({ type: 'Synced' }), condition({ type: 'Degraded' })],
      { type: 'Ready', status: 'True', reason: 'Available', message: '' },
      t1,
    );
    expect(conditions.map((c) => c.type)).toEqual(['Ready', 'Degraded', 'Synced']);
  });

  it('does not change the array it was given', () => {
    const original = [condition()];
    setCondition(original, { type: 'Ready', status: 'True', reason: 'Available', message: '' }, t1);
    expect(original[0]!.status).toBe('False');
  });
});

describe('isConditionTrue', () => {
  it.each([
    { conditions: [condition({ status: 'True' })], generation: 1, expected: true },
    { conditions: [condition({ status: 'True' })], generation: 2, expected: false },
    { conditions: [condition({ status: 'False' })], generation: 1, expected: false },
    { conditions: [], generation: 1, expected: false },
    { conditions: [condition({ status: 'True' })], generation: undefined, expected: true },
  ])(
    'answers $expected for $conditions.0.status at generation $generation',
    ({ conditions, generation, expected }) => {
      expect(isConditionTrue(conditions, 'Ready', generation)).toBe(expected);
    },
  );

  it('finds a condition by type', () => {
    expect(findCondition([condition({ type: 'Synced' })], 'Synced')?.type).toBe('Synced');
  });
});
