/** Writing and reading the runtime's objects: create when missing, merge-patch what is ours. */
import {
  isStoreError,
  type KubeObject,
  type ObjectStore,
  type ResourceType,
} from '../../control-plane/types.js';
import { WorkloadError } from '../runtime.js';

/** A store refusal as a `WorkloadError` with the apiserver's reason (its messages carry no Secret data). */
export function refused(doing: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof WorkloadError) throw error;
    const reason = isStoreError(error) ? error.reason : 'ServerUnreachable';
    const message = error instanceof Error ? error.message : String(error);
    throw new WorkloadError(reason, `the cluster refused to ${doing}: ${message}`, { cause: error });
  };
}

export async function read<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  try {
    return await store.get<T>(type, namespace, name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    return refused(`read ${type.kind} ${name}`)(error);
  }
}

/**
 * Creates `object`, or patches an existing one with `changes(object)`: the fields that may change
 * after creation (others are immutable, or defaulted by the server and left alone).
 */
export async function apply<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
  changes: (object: T) => Record<string, unknown>,
): Promise<T> {
  const { namespace, name } = object.metadata;
  const doing = `write ${type.kind} ${name}`;
  const existing = await read<T>(store, type, namespace!, name);
  if (!existing) {
    try {
      return await store.create(type, object);
    } catch (error) {
      // Another operator replica created it first: patch it like an existing one.
      if (!isStoreError(error, 'AlreadyExists')) return refused(doing)(error);
    }
  }
  const patch = { metadata: { labels: object.metadata.labels }, ...changes(object) };
  return store.patch<T>(type, namespace, name, patch).catch(refused(doing));
}

/** Removes an object; one already gone is fine. */
export async function removeObject(store: ObjectStore, type: ResourceType, namespace: string, name: string) {
  await store.delete(type, namespace, name, { propagationPolicy: 'Background' }).catch((error: unknown) => {
    if (!isStoreError(error, 'NotFound')) refused(`remove ${type.kind} ${name}`)(error);
  });
}
