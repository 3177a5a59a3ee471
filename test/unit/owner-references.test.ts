import { describe, expect, it } from 'vitest';
import {
  isControlledBy,
  ownerReference,
  withControllerReference,
} from '../../control-plane/owner-references.js';
import type { KubeObject } from '../../control-plane/types.js';

const owner: KubeObject = {
  apiVersion: 'cloudplane.dev/v1alpha1',
  kind: 'Vpc',
  metadata: { name: 'main', namespace: 'org-a', uid: 'uid-owner' },
};
const other: KubeObject = { ...owner, metadata: { name: 'old', namespace: 'org-a', uid: 'uid-old' } };

describe('owner references', () => {
  it.each([
    [{}, {}],
    [{ controller: true }, { controller: true }],
    [{ blockOwnerDeletion: false }, { blockOwnerDeletion: false }],
    [
      { controller: true, blockOwnerDeletion: true },
      { controller: true, blockOwnerDeletion: true },
    ],
  ])('with %j names the owner and only the flags given', (options, flags) => {
    expect(ownerReference(owner, options)).toStrictEqual({
      apiVersion: 'cloudplane.dev/v1alpha1',
      kind: 'Vpc',
      name: 'main',
      uid: 'uid-owner',
      ...flags,
    });
  });

  it('makes the owner the one controller, keeping the other owners', () => {
    const plain = ownerReference(other);
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'part',
        ownerReferences: [plain, ownerReference(other, { controller: true })],
      },
    };
    expect(isControlledBy(object, owner)).toBe(false);
    const owned = withControllerReference(object, owner);
    expect(owned.metadata.ownerReferences).toStrictEqual([
      plain,
      ownerReference(owner, { controller: true, blockOwnerDeletion: true }),
    ]);
    expect(isControlledBy(owned, owner)).toBe(true);
    expect(isControlledBy(owned, other)).toBe(false);
  });
});
