/**
 * Owner references, built one way for every kind (controller-runtime's `SetOwnerReference` and
 * `SetControllerReference`). The garbage collector removes an object whose owners are all gone;
 * the one reference marked `controller` names the object that reconciles it.
 */
import type { KubeObject, OwnerReference } from './types.js';

export interface OwnerReferenceOptions {
  /** The owner controls the object; at most one of an object's references does. */
  controller?: boolean;
  /**
   * A foreground deletion of the owner waits for the object. Setting it needs the right to update
   * the owner's finalizers, which not every writer has: each caller says whether it sets it.
   */
  blockOwnerDeletion?: boolean;
}

/** A reference to `owner`, with `controller` and `blockOwnerDeletion` only where given. */
export function ownerReference(owner: KubeObject, options: OwnerReferenceOptions = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: options.blockOwnerDeletion }),
  };
}

/** Whether `owner` is the controlling owner of `object`. */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return Boolean(
    object.metadata.ownerReferences?.some(
      (reference) => reference.controller && reference.uid === owner.metadata.uid,
    ),
  );
}

/**
 * `object` with `owner` as its controlling owner, blocking the owner's foreground deletion: any
 * other controller reference is replaced, the object's other owners stay.
 */
export function withControllerReference<T extends KubeObject>(object: T, owner: KubeObject): T {
  const others = (object.metadata.ownerReferences ?? []).filter((reference) => !reference.controller);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      ownerReferences: [...others, ownerReference(owner, { controller: true, blockOwnerDeletion: true })],
    },
  };
}
