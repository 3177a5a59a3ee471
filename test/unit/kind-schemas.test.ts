/** Kind schemas compile on first use; every kind the platform serves must compile. */
import { describe, expect, it } from 'vitest';
import { KUBERNETES_API_KINDS } from '../../control-plane/built-in-kinds.js';
import { compileKindSchema } from '../../control-plane/schema-validator.js';
import { loadKinds } from '../../crds/registry.js';

describe('kind schemas', () => {
  it.each(
    [...loadKinds(), ...KUBERNETES_API_KINDS].filter((kind) => kind.schema).map((kind) => [kind.kind, kind]),
  )('%s compiles and validates', (_name, kind) => {
    expect(() =>
      compileKindSchema(kind.schema!).validate({ apiVersion: 'v1', kind: kind.kind }),
    ).not.toThrow();
  });
});
