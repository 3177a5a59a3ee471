import type { EventType } from '../../control-plane/event-objects.js';
import type { Condition } from '../../control-plane/types.js';
import { findCondition } from './conditions.js';

/**
 * Which Event a status write deserves, decided from the status before and after: the runtime
 * records it for every controller, so each transition of `Ready` a person would ask about
 * (Provisioning, Available, Deleting, a failure) is in `kubectl describe` without each
 * controller saying it again.
 */

/** Phases that mean the object failed or is stuck until someone acts. */
const FAILED_PHASES = new Set(['error', 'failed', 'degraded', 'disconnected', 'expired']);

export interface StatusEvent {
  type: EventType;
  reason: string;
  message: string;
}

interface StatusShape {
  phase?: unknown;
  conditions?: Condition[];
}

function shapeOf(status: unknown): StatusShape {
  return typeof status === 'object' && status !== null ? (status as StatusShape) : {};
}

/**
 * The event of a status change: none while `Ready` keeps its status and reason; `Normal` when it
 * becomes True or moves to another step of progress; `Warning` when the object is stalled
 * (`Stalled` True) or its phase is a failure.
 */
export function statusTransitionEvent(before: unknown, after: unknown): StatusEvent | undefined {
  const previous = findCondition(shapeOf(before).conditions, 'Ready');
  const { phase, conditions } = shapeOf(after);
  const ready = findCondition(conditions, 'Ready');
  if (ready === undefined || ready.reason === '') return undefined;
  if (previous !== undefined && previous.status === ready.status && previous.reason === ready.reason)
    return undefined;
  const failed =
    ready.status !== 'True' &&
    (findCondition(conditions, 'Stalled')?.status === 'True' ||
      (typeof phase === 'string' && FAILED_PHASES.has(phase)));
  return { type: failed ? 'Warning' : 'Normal', reason: ready.reason, message: ready.message };
}
