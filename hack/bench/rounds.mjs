// What bench:http and bench:vault share: the platform as `cloudplane serve` runs it, a bare
// node:http hello server (the baseline) and Express's own hello world (for reference), each in a
// process of its own; and interleaved rounds, so every figure is a ratio to the baseline measured
// moments before it on the same noisy machine.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, load, serveArgs, unexpectedStatuses } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const ROUND_SECONDS = Number(process.env.BENCH_DURATION ?? 4);
const STARTUP_TIMEOUT_MS = 60_000;

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function get(url) {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', () => resolve(0));
  });
}

/** CPU seconds (user + system) the process has used; /proc counts in ticks of 1/100 s. */
export function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of the processes that serve `target`: its `pids` (replicas) or its `pid`. */
function cpuSecondsOf(target) {
  return (target.pids ?? [target.pid]).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

export function statusMb(pid, field) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
}

/**
 * The highest RSS of `pid` while `work` runs, sampled every 100 ms: the load's own peak, apart
 * from start-up and the one-off password hashing of the set-up (scrypt's 128 MiB at OWASP cost).
 */
export async function peakRssDuring(pid, work) {
  let peak = statusMb(pid, 'VmRSS');
  const sampler = setInterval(() => (peak = Math.max(peak, statusMb(pid, 'VmRSS'))), 100);
  try {
    const result = await work();
    return { result, peakMb: Math.max(peak, statusMb(pid, 'VmRSS')) };
  } finally {
    clearInterval(sampler);
  }
}

/** Counts what the server's JavaScript heap allocates (see allocation-probe.mjs). */
const ALLOCATION_PROBE = path.join(root, 'hack/bench/allocation-probe.mjs');

/**
 * `node dist/cli/cloudplane.js serve` (of the checkout at `checkout`, or this one) on a data dir of
 * its own, rate limits out of the way, with a CPU profile written to `profileDir` if given;
 * answers once `/health` is 200, with the time that took (start-up as a person sees it).
 * `command` runs another command of the same entry point (`apiserver`), with `env` added, on
 * `port` when given.
 */
export async function startServe({
  checkout,
  profileDir,
  command: commandToRun,
  env = {},
  port: chosenPort,
} = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-serve-'));
  const allocationFile = path.join(dataDir, 'allocated-bytes');
  const [port, kubePort] = [chosenPort ?? (await freePort()), await freePort()];
  const started = performance.now();
  // node's flags, then the entry point and the command.
  const args = serveArgs();
  const [flags, [entry, startCommand]] = [args.slice(0, -2), args.slice(-2)];
  const command = commandToRun ?? startCommand;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const script = checkout ? path.join(checkout, path.relative(root, entry)) : entry;
  const child = spawn(
    process.execPath,
    [...flags, ...profile, `--import=${ALLOCATION_PROBE}`, script, command],
    {
      env: {
        ...process.env,
        BENCH_ALLOCATION_FILE: allocationFile,
        CLOUDPLANE_DATA_DIR: dataDir,
        PORT: String(port),
        CLOUDPLANE_KUBE_API_PORT: String(kubePort),
        CLOUDPLANE_RATE_LIMIT_PER_MINUTE: '10000000',
        CLOUDPLANE_RATE_LIMIT_PER_SECOND: '1000000',
        CLOUDPLANE_ACCESS_TOKEN_TTL: '86400',
        ...env,
      },
      // The access log is part of the cost measured; where it goes is not.
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  while ((await get(`${url}/health`)) !== 200) {
    const failure =
      child.exitCode !== null
        ? `cloudplane ${command} exited with ${child.exitCode}`
        : performance.now() - started > STARTUP_TIMEOUT_MS && `cloudplane ${command} did not start`;
    if (failure) {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      throw new Error(failure);
    }
    await delay(10);
  }
  const startupMs = performance.now() - started;
  return {
    url,
    pid: child.pid,
    startupMs,
    /** The process's highest RSS since it started, or since `resetHighWater`. */
    highWaterMb: () => statusMb(child.pid, 'VmHWM'),
    /** Starts the highest RSS afresh: the kernel's peak is set back to the RSS of now. */
    resetHighWater: () => fs.writeFileSync(`/proc/${child.pid}/clear_refs`, '5'),
    rssMb: () => statusMb(child.pid, 'VmRSS'),
    /** The bytes the server's JavaScript heap has allocated since it started. */
    async allocatedBytes() {
      const before = fs.statSync(allocationFile, { throwIfNoEntry: false })?.mtimeMs;
      child.kill('SIGUSR2');
      const asked = performance.now();
      while (fs.statSync(allocationFile, { throwIfNoEntry: false })?.mtimeMs === before) {
        if (performance.now() - asked > 5000) throw new Error('the allocation probe did not answer');
        await delay(5);
      }
      return Number(fs.readFileSync(allocationFile, 'utf8'));
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The baseline and the reference, each in a process of their own. */
export async function startHelloServers() {
  const script = `
    const http = require('node:http');
    const express = require(${JSON.stringify(path.join(root, 'node_modules/express'))});
    const bare = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hello":"world"}');
    }).listen(0, '127.0.0.1', () => process.send({ bare: bare.address().port }));
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.get('/', (req, res) => res.json({ hello: 'world' }));
    const server = app.listen(0, '127.0.0.1', () => process.send({ express: server.address().port }));
  `;
  const spawnHello = (key) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.on('message', (message) => {
        if (message[key]) {
          resolve({ url: `http://127.0.0.1:${message[key]}`, pid: child.pid, stop: () => child.kill() });
        }
      });
      child.once('exit', (code) => reject(new Error(`hello server exited with ${code}`)));
    });
  // One process each, so neither shares an event loop with the other.
  const [bare, express] = await Promise.all([spawnHello('bare'), spawnHello('express')]);
  return { bare, express, stop: () => (bare.stop(), express.stop()) };
}

/** Registers and signs in a user through the API; answers a helper calling the API as them. */
export async function benchAccount(url) {
  const call = async (method, requestPath, { body, token, key, expected = [200, 201] } = {}) => {
    const response = await globalThis.fetch(`${url}${requestPath}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(key ? { 'x-api-key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!expected.includes(response.status)) {
      throw new Error(`${method} ${requestPath} answered ${response.status}: ${await response.text()}`);
    }
    return response.status === 204 ? undefined : response.json();
  };
  const account = { email: 'bench@example.com', password: 'benchmark passphrase', name: 'Bench' };
  await call('POST', '/v1/auth/register', { body: account });
  const login = await call('POST', '/v1/auth/login', {
    body: { email: account.email, password: account.password },
  });
  const token = login.data.token;
  return {
    token,
    call: (method, requestPath, options = {}) => call(method, requestPath, { token, ...options }),
  };
}

/** The secret value (1 KiB once base64-encoded) and the transit plaintext (1 KiB) the benches send. */
export const SECRET_VALUE = randomBytes(768).toString('base64');
export const PLAINTEXT = randomBytes(1024).toString('base64');

/** An API key of `account` allowed to read VPCs, and a VPC it can read; answers both. */
export async function benchVpcAndKey(account) {
  const apiKey = (
    await account.call('POST', '/v1/auth/api-keys', { body: { name: 'bench', scopes: ['vpc:read'] } })
  ).data.key;
  const vpc = await account.call('POST', '/api/v1/vpcs', {
    body: { name: 'bench', cidr_block: '10.20.0.0/16', region: 'us-east-1' },
  });
  return { apiKey, vpc };
}

/**
 * An auto-unsealed vault cluster of `account` with a secret at `bench/read` and a transit key
 * `bench` (made by its first encrypt); answers the cluster as the API shows it.
 */
export async function benchVault(account) {
  const { id } = await account.call('POST', '/api/v1/vault', { body: { name: 'bench', auto_unseal: true } });
  await account.call('POST', `/api/v1/vault/${id}/secret/bench/read`, {
    body: { data: { value: SECRET_VALUE } },
  });
  await account.call('POST', `/api/v1/vault/${id}/encrypt/bench`, { body: { plaintext: PLAINTEXT } });
  return account.call('GET', `/api/v1/vault/${id}`);
}

/**
 * Runs every target for `ROUND_SECONDS`, `ROUNDS` times over, the baseline first in each round;
 * answers per target the median of its ratios to the round's baseline and its median rate.
 * A target: {name, url, pid or pids, method?, path, headers?, body?, status?, allocatedBytes?}; the
 * first is the baseline. The server's CPU time per request is immune to the load generator's share of
 * the machine; so is what its heap allocates per request, where the server can say
 * (`allocatedBytes`, a function answering its running total).
 */
export async function runRounds(targets) {
  const samples = targets.map(() => []);
  console.log(
    `${targets.length} targets, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${ROUND_SECONDS} s each (1 s warm-up first)`,
  );
  for (const target of targets) await load(target.url, request(target), 1);
  for (let round = 1; round <= ROUNDS; round++) {
    let baseline;
    for (const [index, target] of targets.entries()) {
      const allocatedBefore = await target.allocatedBytes?.();
      const cpuBefore = cpuSecondsOf(target);
      const result = await load(target.url, request(target), ROUND_SECONDS);
      const requests = Math.max(1, result.requests.total);
      const cpuMicros = ((cpuSecondsOf(target) - cpuBefore) * 1e6) / requests;
      const allocatedKb =
        allocatedBefore === undefined
          ? undefined
          : ((await target.allocatedBytes()) - allocatedBefore) / 1024 / requests;
      baseline ??= result.requests.average;
      samples[index].push({ result, ratio: result.requests.average / baseline, cpuMicros, allocatedKb });
      await delay(100);
    }
    process.stderr.write(`  round ${round}/${ROUNDS} done\n`);
  }
  return targets.map((target, index) => {
    const byRatio = [...samples[index]].sort((a, b) => a.ratio - b.ratio);
    const median = byRatio[Math.floor(byRatio.length / 2)];
    return {
      target: target.name,
      'req/s': Math.round(median.result.requests.average),
      'p50 ms': median.result.latency.p50,
      'p99 ms': median.result.latency.p99,
      'server CPU µs/req': Math.round(median.cpuMicros),
      'heap KB/req': median.allocatedKb === undefined ? '' : Number(median.allocatedKb.toFixed(1)),
      'ratio to bare': Number(median.ratio.toFixed(3)),
      'ratios (each round)': byRatio.map((sample) => sample.ratio.toFixed(3)).join(' '),
      'errors+timeouts': samples[index].reduce((sum, { result }) => sum + result.errors + result.timeouts, 0),
      'unexpected status': samples[index].reduce(
        (sum, { result }) => sum + unexpectedStatuses(result, target.status ?? 200),
        0,
      ),
    };
  });
}

function request(target) {
  return {
    method: target.method ?? 'GET',
    path: target.path,
    headers: { ...(target.body ? { 'content-type': 'application/json' } : {}), ...target.headers },
    body: target.body === undefined ? undefined : JSON.stringify(target.body),
  };
}

/** Runs `bench(servers)` between starting and stopping the servers, whatever happens. */
export async function withServers(bench) {
  const hello = await startHelloServers();
  let serve;
  try {
    serve = await startServe();
    await bench({ hello, serve });
  } finally {
    hello.stop();
    await serve?.stop();
  }
}
