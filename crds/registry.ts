import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { KINDS } from './index.js';
import type { KindDescriptor } from '../control-plane/kind-descriptor.js';
import { withSpecEnums } from './structural-schema.js';

/**
 * The nearest folder at or above `from` holding a package.json: the repository when running from
 * source (tsx, vitest), the package when running from `dist/` or an installed copy.
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = path.dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json at or above ${from}`);
    dir = parent;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readSchema(kind: KindDescriptor, root: string): Record<string, unknown> {
  const file = path.join(root, 'crds', `${kind.plural}.${kind.group}.yaml`);
  if (!fs.existsSync(file)) {
    throw new Error(`${kind.kind}: ${file} is missing; run npm run gen:crds`);
  }
  // js-yaml reads these machine-written files to the same objects as the `yaml` package that wrote
  // them, in a sixth of the time: start-up reads all of them before the first request.
  const crd: unknown = load(fs.readFileSync(file, 'utf8'));
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  if (spec.group !== kind.group || names.kind !== kind.kind) {
    throw new Error(`${kind.kind}: ${file} describes another kind; run npm run gen:crds`);
  }
  const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
  const version = versions.find((entry) => isRecord(entry) && entry.name === kind.version);
  const schema = isRecord(version) && isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isRecord(schema)) {
    throw new Error(`${kind.kind}: ${file} has no schema for version ${kind.version}; run npm run gen:crds`);
  }
  return schema;
}

/**
 * The kinds with `schema` filled from their generated CRDs, so the embedded store validates
 * objects exactly as a real apiserver holding those CRDs would. Throws, naming the file, when a
 * CRD is missing or out of step with its descriptor.
 */
export function loadKinds(kinds: KindDescriptor[] = KINDS, root: string = packageRoot()): KindDescriptor[] {
  return kinds.map((kind) => ({
    ...kind,
    schema: withSpecEnums(readSchema(kind, root), kind.specEnums?.()),
  }));
}
