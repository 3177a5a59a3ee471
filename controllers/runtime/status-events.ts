import type { EventType } from '../../control-plane/event-objects.js';
import type { Condition } from '../../control-plane/types.js';
import { findCondition, setCondition } from './conditions.js';

/**
 * Which Event a status write deserves, decided from the status before and after: the runtime
 * records it for every controller, so each transition of `Ready` a person would ask about
 * (Provisioning, Available, Deleting, a failure) is in `kubectl describe` without each
 * controller saying it again.
 */

/**
 * Phases that mean the object failed or is stuck until someone acts. Not `disconnected`: an
 * integration is disconnected only because someone disabled it, which is no failure (as Flux's
 * suspend): Ready False, a Normal event, and nothing Stalled.
 */
const FAILED_PHASES = new Set(['error', 'failed', 'degraded', 'expired']);

export interface StatusEvent {
  type: EventType;
  reason: string;
  message: string;
}

interface StatusShape {
  phase?: unknown;
  conditions?: Condition[];
}

function isFailedPhase(phase: unknown): boolean {
  return typeof phase === 'string' && FAILED_PHASES.has(phase);
}

/**
 * The `Stalled` condition the runtime keeps (kstatus' Failed): True, with the reason and message
 * of `Ready`. A `Stalled` that differs from `Ready` is the controller's own (stacks write one).
 */
export function runtimeStalled(status: unknown): Condition | undefined {
  const { conditions } = shapeOf(status);
  const stalled = findCondition(conditions, 'Stalled');
  const ready = findCondition(conditions, 'Ready');
  if (stalled?.status !== 'True' || ready === undefined) return undefined;
  return stalled.reason === ready.reason && stalled.message === ready.message ? stalled : undefined;
}

/**
 * The status a controller writes, with kstatus' `Stalled` kept for it: set while the phase is a
 * failure (`error`, `degraded`, …) and `Ready` is not True, with `Ready`'s reason and message;
 * gone once `Ready` moves on from the stall the runtime had set. A controller that writes its
 * own `Stalled` keeps it as written.
 */
export function withRuntimeStalled<S>(before: unknown, after: S, now: Date): S {
  const next = shapeOf(after);
  const previousStall = runtimeStalled(before);
  const written = findCondition(next.conditions, 'Stalled');
  const sameAsPrevious =
    written !== undefined &&
    previousStall !== undefined &&
    written.reason === previousStall.reason &&
    written.message === previousStall.message;
  if (written !== undefined && !sameAsPrevious) return after;
  const ready = findCondition(next.conditions, 'Ready');
  if (ready !== undefined && ready.status !== 'True' && isFailedPhase(next.phase)) {
    const conditions = setCondition(
      next.conditions,
      {
        type: 'Stalled',
        status: 'True',
        reason: ready.reason,
        message: ready.message,
        ...(ready.observedGeneration === undefined ? {} : { observedGeneration: ready.observedGeneration }),
      },
      now,
    );
    return { ...after, conditions };
  }
  if (written === undefined) return after;
  return { ...after, conditions: next.conditions!.filter((condition) => condition !== written) };
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
    (findCondition(conditions, 'Stalled')?.status === 'True' || isFailedPhase(phase));
  return { type: failed ? 'Warning' : 'Normal', reason: ready.reason, message: ready.message };
}
