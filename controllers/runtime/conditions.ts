import type { Condition } from '../../control-plane/types.js';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * Returns the conditions with `input` set: `lastTransitionTime` moves only when the status
 * flips, and `Ready` stays first because it is the one people and `kubectl wait` read.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date,
): Condition[] {
  const existing = conditions?.find((condition) => condition.type === input.type);
  const lastTransitionTime =
    existing && existing.status === input.status ? existing.lastTransitionTime : now.toISOString();
  const updated: Condition = { ...input, lastTransitionTime };
  const others = (conditions ?? []).filter((condition) => condition.type !== input.type);
  return sortConditions([...others, updated]);
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/** True when the condition is True and describes the current generation. */
export function isConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
  generation?: number,
): boolean {
  const condition = findCondition(conditions, type);
  if (!condition || condition.status !== 'True') return false;
  return generation === undefined || condition.observedGeneration === generation;
}

function sortConditions(conditions: Condition[]): Condition[] {
  return conditions.sort((a, b) => {
    if (a.type === 'Ready') return -1;
    if (b.type === 'Ready') return 1;
    return a.type.localeCompare(b.type);
  });
}
