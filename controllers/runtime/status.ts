import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';

/**
 * Writes `status` through the status subresource only when it differs from what the object
 * carries, so a steady reconcile loop makes no writes. The object's resourceVersion guards the
 * write: a stale read fails with 409 and the reconcile retries on fresh state.
 */
export async function writeStatusIfChanged<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
  status: NonNullable<T['status']>,
): Promise<T> {
  if (isDeepStrictEqual(object.status, status)) return object;
  return store.updateStatus<T>(type, { ...object, status });
}

/**
 * Writes `phase: deleting` with why as an object's deletion starts, once: a later look finds it
 * written and writes nothing. Answers the object as written.
 */
export async function markDeleting<T extends KubeObject<unknown, { phase?: string; message?: string }>>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
  message: string,
): Promise<T> {
  if (object.status?.phase === 'deleting') return object;
  return store.updateStatus<T>(type, { ...object, status: { ...object.status, phase: 'deleting', message } });
}
