import type { KubeObject, ObjectStore, ResourceType } from '../../control-plane/types.js';

/** Held while what the object stands for outside the process (a database, files, a dump) exists. */
export const WORKLOAD_FINALIZER = 'cloudplane.dev/workload';

export function holdsFinalizer(object: KubeObject, finalizer = WORKLOAD_FINALIZER): boolean {
  return (object.metadata.finalizers ?? []).includes(finalizer);
}

export async function addFinalizer<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
  finalizer = WORKLOAD_FINALIZER,
): Promise<T> {
  if (holdsFinalizer(object, finalizer)) return object;
  return store.update<T>(type, {
    ...object,
    metadata: { ...object.metadata, finalizers: [...(object.metadata.finalizers ?? []), finalizer] },
  });
}

export async function removeFinalizer<T extends KubeObject>(
  store: ObjectStore,
  type: ResourceType,
  object: T,
  finalizer = WORKLOAD_FINALIZER,
): Promise<void> {
  await store.update<T>(type, {
    ...object,
    metadata: {
      ...object.metadata,
      finalizers: (object.metadata.finalizers ?? []).filter((entry) => entry !== finalizer),
    },
  });
}
