// Start-up of `cloudplane serve`: the time from spawning the process to the first `/health` 200,
// on a new data directory (migrations included) and on an existing one, run directly (the start
// script's node command) and through `npm start`; the CPU time the server had used by then (less
// at the mercy of a busy machine than the wall time); the time to the first answer of the REST API
// itself (an anonymous `GET /api/v1/vpcs`, 401 once every area is served); and the idle RSS once it
// has settled after start-up, and once more per checkout after V8's memory reducer has run
// (BENCH_SETTLED_MS; 0 leaves it out). The cases interleave in every run, so the machine's load falls on all alike.
// BENCH_BASELINE names another built checkout (such as the main branch's) whose cases run in the
// same rounds, for before/after figures and their ratios.
//
//   npm run bench:startup                  # builds, then 7 runs of each case
//   BENCH_RUNS=15 BENCH_BASELINE=/work/main npm run bench:startup
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveArgs } from './harness.mjs';
import { cpuSeconds, freePort, get, statusMb } from './rounds.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** How long the server idles after its first `/health` 200 before its RSS is read. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 2000);
/**
 * How long one more start-up per checkout idles before its settled RSS is read: V8 keeps the young
 * generation start-up grew, and the pages it freed, until its memory reducer has seen the
 * allocation rate stay low (10 to 16 s after start-up here).
 */
const SETTLED_MS = Number(process.env.BENCH_SETTLED_MS ?? 25_000);
const STARTUP_TIMEOUT_MS = 30_000;
const CHECKOUTS = [
  { label: 'this checkout', root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') },
  ...(process.env.BENCH_BASELINE
    ? [{ label: 'baseline', root: path.resolve(process.env.BENCH_BASELINE) }]
    : []),
];
const CASES = CHECKOUTS.flatMap((checkout) =>
  [
    { name: 'new data dir, node', fresh: true, npm: false },
    { name: 'existing data dir, node', fresh: false, npm: false },
    { name: 'new data dir, npm start', fresh: true, npm: true },
    { name: 'existing data dir, npm start', fresh: false, npm: true },
  ].map((variant) => ({ ...variant, checkout, name: `${checkout.label}: ${variant.name}` })),
);

/**
 * Starts `cloudplane serve` on `dataDir` and answers once `/health` is 200: the milliseconds that
 * took and the server's CPU seconds by then, the milliseconds to the REST API's first answer, the RSS of the server's node process after `SETTLE_MS` idle, and a stop function.
 */
async function startOnce(root, dataDir, viaNpm, settleMs = SETTLE_MS) {
  const [port, kubePort] = [await freePort(), await freePort()];
  const started = performance.now();
  const [command, args] = viaNpm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, serveArgs(pathToFileURL(`${root}/`))];
  // Its own process group, so npm's shell and the node it starts stop together.
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      CLOUDPLANE_DATA_DIR: dataDir,
      PORT: String(port),
      CLOUDPLANE_KUBE_API_PORT: String(kubePort),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}/health`;
  while ((await get(url)) !== 200) {
    if (child.exitCode !== null) throw new Error(`cloudplane serve exited with ${child.exitCode}`);
    if (performance.now() - started > STARTUP_TIMEOUT_MS) throw new Error('cloudplane serve did not start');
    await delay(5);
  }
  const startupMs = performance.now() - started;
  const server = serverPid(child.pid);
  const cpuS = cpuSeconds(server);
  if ((await get(`http://127.0.0.1:${port}/api/v1/vpcs`)) !== 401)
    throw new Error('the REST API did not answer 401');
  const apiMs = performance.now() - started;
  await delay(settleMs);
  const rssMb = statusMb(server, 'VmRSS');
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  return { startupMs, cpuS, apiMs, rssMb };
}

/** The node process serving: `pid` itself, or the descendant of npm whose command line runs serve. */
function serverPid(pid) {
  const [program, ...args] = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  if (path.basename(program) === 'node' && args.some((arg) => arg.endsWith('cloudplane.js'))) return pid;
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  for (const child of children.filter(Boolean)) {
    const found = serverPid(Number(child));
    if (found) return found;
  }
  return 0;
}

function summary(values, digits) {
  const sorted = [...values].sort((a, b) => a - b);
  const format = (value) => Number(value.toFixed(digits));
  return {
    median: format(sorted[Math.floor(sorted.length / 2)]),
    min: format(sorted[0]),
    max: format(sorted.at(-1)),
  };
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-startup-'));
try {
  // The existing data directories: one start-up each has created it and applied the migrations.
  const existing = CHECKOUTS.map((_checkout, index) => path.join(scratch, `existing-${index}`));
  for (const [index, { root }] of CHECKOUTS.entries()) await startOnce(root, existing[index], false);
  const samples = CASES.map(() => []);
  console.log(`${RUNS} runs of ${CASES.length} interleaved cases; RSS read after ${SETTLE_MS} ms idle`);
  console.log(`load average before: ${loadAverage()}`);
  for (let run = 1; run <= RUNS; run++) {
    for (const [index, { fresh, npm, checkout }] of CASES.entries()) {
      const dataDir = fresh
        ? path.join(scratch, `new-${run}-${index}`)
        : existing[CHECKOUTS.indexOf(checkout)];
      samples[index].push(await startOnce(checkout.root, dataDir, npm));
      if (fresh) fs.rmSync(dataDir, { recursive: true, force: true });
    }
    process.stderr.write(`  run ${run}/${RUNS} done\n`);
  }
  const variants = CASES.length / CHECKOUTS.length;
  console.table(
    CASES.map(({ name }, index) => {
      const seconds = summary(
        samples[index].map(({ startupMs }) => startupMs / 1000),
        2,
      );
      const cpu = summary(
        samples[index].map(({ cpuS }) => cpuS),
        2,
      );
      const api = summary(
        samples[index].map(({ apiMs }) => apiMs / 1000),
        2,
      );
      const rss = summary(
        samples[index].map(({ rssMb }) => rssMb),
        0,
      );
      // The same case of the baseline in the same runs: the median of the per-run ratios.
      const baseline = index < variants ? samples[index + variants] : undefined;
      const ratios =
        baseline &&
        summary(
          samples[index].map(({ startupMs }, run) => startupMs / baseline[run].startupMs),
          2,
        );
      return {
        case: name,
        'to /health s (median)': seconds.median,
        'min s': seconds.min,
        'max s': seconds.max,
        'CPU s at /health (median)': cpu.median,
        'to API answer s (median)': api.median,
        'idle RSS MB (median)': rss.median,
        'RSS min–max MB': `${rss.min}–${rss.max}`,
        ...(ratios ? { 'time ratio to baseline (median)': ratios.median } : {}),
      };
    }),
  );
  if (SETTLED_MS > 0) {
    for (const [index, { label, root }] of CHECKOUTS.entries()) {
      const { rssMb } = await startOnce(root, existing[index], false, SETTLED_MS);
      console.log(
        `${label}: settled idle RSS ${rssMb} MB (existing data dir, read after ${SETTLED_MS / 1000} s idle)`,
      );
    }
  }
  console.log(`load average after: ${loadAverage()}`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
