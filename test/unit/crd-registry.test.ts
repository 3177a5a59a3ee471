import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCrd, writeGeneratedCrds } from '../../crds/generate.js';
import { KINDS } from '../../crds/index.js';
import { loadKinds, packageRoot } from '../../crds/registry.js';
import { widgetKind } from '../fixtures/crd-widget.js';

const repoRoot = packageRoot(import.meta.url);

describe('packageRoot', () => {
  it('finds the folder holding package.json from a file deep inside it', () => {
    expect(fs.existsSync(path.join(repoRoot, 'package.json'))).toBe(true);
    expect(packageRoot(path.join(repoRoot, 'crds/registry.ts'))).toBe(repoRoot);
    expect(packageRoot(new URL('../../dist/crds/registry.js', import.meta.url).href)).toBe(repoRoot);
  });

  it('refuses a path with no package.json above it', () => {
    expect(() => packageRoot('/')).toThrow('no package.json at or above /');
  });
});

describe('loadKinds', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-registry-'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{}');
    for (const file of [
      'tsconfig.json',
      'control-plane/kind-descriptor.ts',
      'control-plane/types.ts',
      widgetKind.typesFile,
    ]) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, file), path.join(dir, file));
    }
    writeGeneratedCrds(dir, [widgetKind]);
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fills each kind with the openAPIV3Schema of its generated CRD', () => {
    const [loaded] = loadKinds([widgetKind], dir);
    const crd = generateCrd(widgetKind, dir) as {
      spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
    };
    expect(loaded).toEqual({ ...widgetKind, schema: crd.spec.versions[0]!.schema.openAPIV3Schema });
    expect(widgetKind.schema).toBeUndefined();
  });

  it('names the missing file and the command that writes it', () => {
    const gadget = { ...widgetKind, kind: 'Gadget', plural: 'gadgets' };
    expect(() => loadKinds([gadget], dir)).toThrow(
      `Gadget: ${path.join(dir, 'crds/gadgets.cloudplane.dev.yaml')} is missing; run npm run gen:crds`,
    );
  });

  it('refuses a CRD file written for another kind', () => {
    const renamed = { ...widgetKind, kind: 'Sprocket' };
    expect(() => loadKinds([renamed], dir)).toThrow('describes another kind; run npm run gen:crds');
  });

  it('loads every kind the product serves from the repository', () => {
    expect(loadKinds().map((kind) => kind.kind)).toEqual(KINDS.map((kind) => kind.kind));
  });
});
