/**
 * `npm run gen:crds`: writes the CRD YAML for every kind in crds/index.ts into crds/ and the
 * chart. `npm run gen:crds -- --check` writes nothing and fails when the files on disk are not
 * what the types generate (CI runs it to catch drift).
 */
import { checkGeneratedCrds, writeGeneratedCrds } from '../crds/generate.js';
import { KINDS } from '../crds/index.js';
import { packageRoot } from '../crds/registry.js';

const repoRoot = packageRoot(import.meta.url);
const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--check');
if (unknown.length > 0) {
  console.error(`unknown argument ${unknown.join(' ')}; usage: gen-crds [--check]`);
  process.exit(2);
}

if (args.includes('--check')) {
  const { stale } = checkGeneratedCrds(repoRoot, KINDS);
  if (stale.length > 0) {
    for (const file of stale) console.error(`out of date: ${file}`);
    console.error('run npm run gen:crds and commit the result');
    process.exit(1);
  }
  console.log(`CRDs up to date (${KINDS.length} kinds)`);
} else {
  const { written, removed } = writeGeneratedCrds(repoRoot, KINDS);
  for (const file of written) console.log(`wrote ${file}`);
  for (const file of removed) console.log(`removed ${file}`);
  console.log(`CRDs generated (${KINDS.length} kinds)`);
}
