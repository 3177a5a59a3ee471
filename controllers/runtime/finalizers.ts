import type { KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';

/** Held while what the object stands for outside the process (a database, files, a dump) exists. */
export const WORKLOAD_FINALIZER = 'cloudplane.dev/workload';

export function holdsFinalizer(object: KubeObject): boolean {
  return (object.metadata.finalizers ?? []).includes(WORKLOAD_FINALIZER);
}

export async function addFinalizer<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
): Promise<T> {
  if (holdsFinalizer(object)) return object;
  return store.update<T>(type, {
    ...object,
    metadata: { ...object.metadata, finalizers: [...(object.metadata.finalizers ?? []), WORKLOAD_FINALIZER] },
  });
}

export async function removeFinalizer<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
): Promise<void> {
  await store.update<T>(type, {
    ...object,
    metadata: {
      ...object.metadata,
      finalizers: (object.metadata.finalizers ?? []).filter((entry) => entry !== WORKLOAD_FINALIZER),
    },
  });
}
