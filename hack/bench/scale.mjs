// How the embedded mode holds up under many objects: `kubectl apply` of N Vpc manifests into one
// namespace, then the time until every Vpc is Ready and its three default parts exist, the
// server's peak RSS and the control-plane file's size.
//
//   npm run bench:scale                 # builds, then N=2500 (10,000 objects)
//   BENCH_VPCS=1000 npm run bench:scale
//   BENCH_RECONCILE=off …               # the Kubernetes API alone, no controllers: the apply's own cost
//   BENCH_VALIDATE=false …              # kubectl apply --validate=false: without kubectl's schema
//                                       # check (the OpenAPI v3 documents it downloads and parses)
//   BENCH_VALIDATE=compare …            # first the same apply without validation into a namespace of
//                                       # its own, then the measured one with it: both times and their
//                                       # ratio, back to back on one server (with BENCH_RECONCILE=off:
//                                       # with controllers, the first Vpcs are reconciled meanwhile)
//   BENCH_PROFILE_DIR=/tmp/prof …       # the server writes a .cpuprofile there on exit
//                                       # (summarise it with hack/bench/profile-summary.mjs)
//
// The server is `cloudplane serve` in a child process with a data dir of its own; kubectl is the
// one `npm run tools` extracts. The per-namespace VPC limit is raised through its setting,
// CLOUDPLANE_VPC_LIMIT.
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serveArgs } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const kubectl = path.join(root, '.tools/bin/kubectl');
const count = Number(process.env.BENCH_VPCS ?? 2500);
const namespace = 'bench';
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 600) * 1000;
const reconcile = process.env.BENCH_RECONCILE !== 'off';
const profileDir = process.env.BENCH_PROFILE_DIR;
const validate = process.env.BENCH_VALIDATE !== 'false';
const compare = process.env.BENCH_VALIDATE === 'compare';

if (!fs.existsSync(kubectl)) {
  console.error(`bench:scale needs ${kubectl}: run npm run tools`);
  process.exit(2);
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    execFile(kubectl, args, { env, maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

function peakRssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function fileMb(...files) {
  const bytes = files
    .filter((file) => fs.existsSync(file))
    .reduce((sum, file) => sum + fs.statSync(file).size, 0);
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-scale-'));
const serverArgs = reconcile ? serveArgs() : [path.join(root, 'hack/bench/kube-api-only.mjs')];
if (profileDir) serverArgs.unshift('--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`);
const server = spawn(process.execPath, serverArgs, {
  env: {
    ...process.env,
    CLOUDPLANE_DATA_DIR: dataDir,
    PORT: '0',
    CLOUDPLANE_KUBE_API_PORT: '0',
    CLOUDPLANE_VPC_LIMIT: String(Math.min(10_000, count + 10)),
    CLOUDPLANE_LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

try {
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  const startedAt = Date.now();
  while (!fs.existsSync(kubeconfig)) {
    if (Date.now() - startedAt > 60_000) throw new Error('the server wrote no kubeconfig within 60 s');
    await delay(100);
  }
  const env = { PATH: process.env.PATH, HOME: dataDir, KUBECONFIG: kubeconfig };
  await run(['create', 'namespace', namespace], env);

  const manifests = path.join(dataDir, 'vpcs.yaml');
  const documents = [];
  for (let index = 0; index < count; index += 1) {
    // Blocks of one region must not overlap: 10.<hi>.<lo>.0/24 gives 65,536 of them.
    const block = `10.${Math.floor(index / 256)}.${index % 256}.0/24`;
    documents.push(
      [
        'apiVersion: cloudplane.dev/v1alpha1',
        'kind: Vpc',
        'metadata:',
        `  name: bench-${index}`,
        `  namespace: ${namespace}`,
        'spec:',
        `  name: bench-${index}`,
        `  cidrBlock: ${block}`,
        '  region: us-east-1',
      ].join('\n'),
    );
  }
  fs.writeFileSync(manifests, `${documents.join('\n---\n')}\n`);

  // The apply without kubectl's schema check, into a namespace of its own (the Vpcs are the same
  // but for it), so the measured apply below starts from the same empty namespace either way.
  let unvalidatedSeconds;
  if (compare) {
    const other = `${namespace}-unvalidated`;
    await run(['create', 'namespace', other], env);
    const otherManifests = path.join(dataDir, 'vpcs-unvalidated.yaml');
    fs.writeFileSync(
      otherManifests,
      fs.readFileSync(manifests, 'utf8').replaceAll(`namespace: ${namespace}\n`, `namespace: ${other}\n`),
    );
    console.log(`applying ${count} Vpcs with kubectl --validate=false…`);
    const started = Date.now();
    await run(['apply', '-f', otherManifests, '--validate=false'], env);
    unvalidatedSeconds = (Date.now() - started) / 1000;
  }

  console.log(`applying ${count} Vpcs with kubectl…`);
  const applyStart = Date.now();
  await run(['apply', '-f', manifests, ...(validate ? [] : ['--validate=false'])], env);
  const applySeconds = (Date.now() - applyStart) / 1000;
  console.log(`applied in ${applySeconds.toFixed(1)} s; waiting for Ready and the default parts…`);

  const list = async (kind) => JSON.parse(await run(['get', kind, '-n', namespace, '-o', 'json'], env)).items;
  let ready = 0;
  let parts = 0;
  let readySeconds;
  while (reconcile && Date.now() - applyStart < timeoutMs) {
    const vpcs = await list('vpcs');
    ready = vpcs.filter((vpc) =>
      (vpc.status?.conditions ?? []).some(
        (condition) => condition.type === 'Ready' && condition.status === 'True',
      ),
    ).length;
    // Listing every part each second would load the server being measured: count them once the
    // VPCs are Ready (a VPC turns Ready only after creating its parts, so this rarely repeats).
    if (ready === count) {
      parts = 0;
      for (const kind of ['routetables', 'securitygroups', 'networkacls']) parts += (await list(kind)).length;
    }
    process.stdout.write(`\r  ready ${ready}/${count}, default parts ${parts}/${count * 3}   `);
    if (ready === count && parts >= count * 3) {
      readySeconds = (Date.now() - applyStart) / 1000;
      break;
    }
    await delay(1000);
  }
  process.stdout.write('\n');
  // Without controllers nothing turns Ready: the figure is the apply of the N Vpcs alone.
  const objects = reconcile ? count * 4 : count;
  const seconds = reconcile ? readySeconds : applySeconds;
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  console.table([
    {
      mode: reconcile ? 'serve' : 'API only, no controllers',
      vpcs: count,
      objects,
      validate,
      'apply s': applySeconds.toFixed(1),
      ...(compare
        ? {
            'apply s, --validate=false': unvalidatedSeconds.toFixed(1),
            ratio: (applySeconds / unvalidatedSeconds).toFixed(1),
          }
        : {}),
      'all Ready s': reconcile
        ? readySeconds === undefined
          ? `not within ${timeoutMs / 1000} s`
          : readySeconds.toFixed(1)
        : '-',
      'objects/s': seconds === undefined ? '-' : Math.round(objects / seconds),
      'peak RSS MB': peakRssMb(server.pid),
      'control plane MB': fileMb(
        path.join(dataDir, 'control-plane.db'),
        path.join(dataDir, 'control-plane.db-wal'),
      ),
    },
  ]);
  if (reconcile && readySeconds === undefined) process.exitCode = 1;
} finally {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
