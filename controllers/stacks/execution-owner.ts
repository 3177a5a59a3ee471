import { ownerReference } from '../../control-plane/owner-references.js';
import type { OwnerReference } from '../../control-plane/types.js';
import type { Stack } from '../../crds/stacks.js';

/**
 * An execution's owner reference: its stack controls it. Without blockOwnerDeletion, which the
 * API could set only if it could update a stack's finalizers.
 */
export function executionOwner(stack: Stack): OwnerReference {
  return ownerReference(stack, { controller: true });
}
