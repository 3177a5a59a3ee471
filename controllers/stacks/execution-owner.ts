import type { Stack } from '../../crds/stacks.js';

/**
 * An execution's owner reference: its stack controls it. Without blockOwnerDeletion, which the
 * API could set only if it could update a stack's finalizers.
 */
export function executionOwner(stack: Stack) {
  return {
    apiVersion: stack.apiVersion,
    kind: stack.kind,
    name: stack.metadata.name,
    uid: stack.metadata.uid!,
    controller: true,
  };
}
