// Cluster mode measured: `cloudplane apiserver` (the REST API over the Kubernetes API and
// PostgreSQL) with the embedded Kubernetes API (kube-api-only.mjs) as its cluster and a private
// database on this machine's PostgreSQL as its data plane, one replica and then two behind a
// round-robin TCP proxy (each connection to the next replica, as a Service's kube-proxy
// balances), against `cloudplane serve` (the embedded mode) and bare node:http in the same
// interleaved rounds. Per target: req/s, p50/p99, the servers' CPU per request (both replicas'
// for two), ratios to embedded and to bare, and the PostgreSQL statements sent per request
// (the replicas' `database_queries_total`, transaction control included).
//
//   npm run bench:cluster                              # builds, then 3 rounds of 4 s per target
//   BENCH_ROUNDS=5 BENCH_DURATION=10 npm run bench:cluster
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres   # the server (this default)
//   BENCH_BEFORE=/tmp/before npm run bench:cluster     # also one and two replicas of a checkout
//       built there (see vault.mjs), on a database of their own, in the same rounds
//
// Each cluster's database is created for the run (cp_bench_<random>) and dropped afterwards.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  PLAINTEXT,
  benchAccount,
  benchVault,
  benchVpcAndKey,
  freePort,
  runRounds,
  startServe,
  withServers,
} from './rounds.mjs';

const BEFORE_ROOT = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KUBE_API_ONLY = fileURLToPath(new URL('kube-api-only.mjs', import.meta.url));
const START_TIMEOUT_MS = 60_000;
/** Requests per target whose statements are counted, sent this many at a time. */
const COUNTED_REQUESTS = 400;
const COUNTED_CONCURRENCY = 10;

async function onServer(statement) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A database of this run's own on the server; `drop` removes it, closing what still uses it. */
async function privateDatabase() {
  const name = `cp_bench_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(`drop database if exists ${name} with (force)`) };
}

/** The embedded Kubernetes API alone, in a process of its own; answers its kubeconfig's path. */
async function startKubeApi() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-kube-'));
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  const child = spawn(process.execPath, [KUBE_API_ONLY], {
    // The replicas' watches end as they stop: what the API logs of that is not the bench's to show.
    env: { ...process.env, CLOUDPLANE_DATA_DIR: dataDir, CLOUDPLANE_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const started = performance.now();
  while (!fs.existsSync(kubeconfig)) {
    if (child.exitCode !== null) throw new Error(`kube-api-only.mjs exited with ${child.exitCode}`);
    if (performance.now() - started > START_TIMEOUT_MS) throw new Error('the Kubernetes API did not start');
    await delay(20);
  }
  return {
    kubeconfig,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A round-robin TCP proxy to `ports` in a process of its own; answers its URL and pid. */
function startProxy(ports) {
  const script = `
    const net = require('node:net');
    const ports = ${JSON.stringify(ports)};
    let next = 0;
    const server = net.createServer((client) => {
      const upstream = net.connect(ports[next++ % ports.length], '127.0.0.1');
      const close = () => (client.destroy(), upstream.destroy());
      for (const socket of [client, upstream]) socket.on('error', close).on('close', close);
      client.pipe(upstream).pipe(client);
    }).listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', ({ port }) =>
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill() }),
    );
    child.once('exit', (code) => reject(new Error(`the proxy exited with ${code}`)));
  });
}

/** The statements the replicas at `urls` have sent to PostgreSQL since they started. */
async function queriesSent(urls) {
  let total = 0;
  for (const url of urls) {
    const text = await (await globalThis.fetch(`${url}/metrics`)).text();
    const sent = /^database_queries_total (\d+)/m.exec(text);
    if (!sent) throw new Error(`${url}/metrics has no database_queries_total`);
    total += Number(sent[1]);
  }
  return total;
}

/** PostgreSQL statements per request of `target`, counted at the replicas at `replicaUrls`. */
async function queriesPerRequest(target, replicaUrls) {
  const before = await queriesSent(replicaUrls);
  let next = 0;
  const send = async () => {
    while (next++ < COUNTED_REQUESTS) {
      const response = await globalThis.fetch(`${target.url}${target.path}`, {
        method: target.method ?? 'GET',
        headers: { ...(target.body ? { 'content-type': 'application/json' } : {}), ...target.headers },
        body: target.body === undefined ? undefined : JSON.stringify(target.body),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: COUNTED_CONCURRENCY }, send));
  return Number(((await queriesSent(replicaUrls)) - before) / COUNTED_REQUESTS).toFixed(2);
}

/** A user with an API key, a VPC and a vault cluster on the server at `url`; answers the requests. */
async function requestsOn(url) {
  const account = await benchAccount(url);
  const { apiKey, vpc } = await benchVpcAndKey(account);
  const vault = await benchVault(account);
  const bearer = { authorization: `Bearer ${account.token}` };
  return [
    { name: 'GET /health', path: '/health' },
    { name: 'GET /v1/auth/me (bearer)', path: '/v1/auth/me', headers: bearer },
    {
      name: 'GET /api/v1/vpcs/:id (API key)',
      path: `/api/v1/vpcs/${vpc.id}`,
      headers: { 'x-api-key': apiKey },
    },
    {
      name: 'vault secret read (1 KiB)',
      path: `/api/v1/vault/${vault.id}/secret/bench/read`,
      headers: bearer,
    },
    {
      name: 'transit encrypt (1 KiB)',
      method: 'POST',
      path: `/api/v1/vault/${vault.id}/encrypt/bench`,
      headers: bearer,
      body: { plaintext: PLAINTEXT },
    },
  ];
}

const REPLICA_MODES = ['1 replica', '2 replicas'];
const BEFORE = ' (before)';
const MODES = [
  'embedded',
  ...REPLICA_MODES,
  ...(BEFORE_ROOT ? REPLICA_MODES.map((mode) => `${mode}${BEFORE}`) : []),
];

/** One row per target and mode: the figures, and the ratios to the embedded mode's. */
function summary(rows, queries) {
  const byName = new Map(rows.map((row) => [row.target, row]));
  return [...queries.keys()].flatMap((requestName) => {
    const embedded = byName.get(`embedded: ${requestName}`);
    return MODES.map((mode) => {
      const row = byName.get(`${mode}: ${requestName}`);
      return {
        target: requestName,
        mode,
        'req/s': row['req/s'],
        'p50 ms': row['p50 ms'],
        'p99 ms': row['p99 ms'],
        'CPU µs/req': row['server CPU µs/req'],
        'ratio to bare': row['ratio to bare'],
        'ratio to embedded': Number((row['req/s'] / embedded['req/s']).toFixed(2)),
        'CPU over embedded': Number((row['server CPU µs/req'] / embedded['server CPU µs/req']).toFixed(2)),
        'queries/req': queries.get(requestName)[mode] ?? '',
      };
    });
  });
}

/**
 * Two apiserver replicas of the build at `checkout` (this one when undefined) on a database of
 * their own, behind a proxy; `stop` ends them and drops the database.
 */
async function startCluster(kubeApi, checkout) {
  const database = await privateDatabase();
  const replicas = [];
  let proxy;
  const stop = async () => {
    proxy?.stop();
    for (const replica of replicas) await replica.stop();
    await database.drop();
  };
  try {
    const ports = [await freePort(), await freePort()];
    proxy = await startProxy(ports);
    // Replicas share the platform key, as the chart's Secret gives it to each of them, and the
    // base URL (the issuer of their access tokens): the proxy's, as a Service's would be.
    const env = {
      KUBECONFIG: kubeApi.kubeconfig,
      DATABASE_URL: database.url,
      CLOUDPLANE_KMS_KEY: randomBytes(32).toString('base64'),
      CLOUDPLANE_BASE_URL: proxy.url,
    };
    for (const port of ports) {
      replicas.push(await startServe({ checkout, command: 'apiserver', env, port }));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { replicas, proxy, stop };
}

await withServers(async ({ hello, serve }) => {
  const kubeApi = await startKubeApi();
  const clusters = [];
  try {
    process.stderr.write('  starting two apiserver replicas\n');
    clusters.push({ suffix: '', ...(await startCluster(kubeApi, undefined)) });
    if (BEFORE_ROOT) {
      process.stderr.write(`  starting two apiserver replicas of ${BEFORE_ROOT}\n`);
      clusters.push({ suffix: BEFORE, ...(await startCluster(kubeApi, BEFORE_ROOT)) });
    }
    const embeddedRequests = await requestsOn(serve.url);
    const servers = { embedded: { url: serve.url, pids: [serve.pid], requests: embeddedRequests } };
    for (const { suffix, replicas, proxy } of clusters) {
      const requests = await requestsOn(replicas[0].url);
      const replicaUrls = replicas.map(({ url }) => url);
      servers[`1 replica${suffix}`] = {
        url: replicas[0].url,
        pids: [replicas[0].pid],
        requests,
        replicaUrls,
      };
      servers[`2 replicas${suffix}`] = {
        url: proxy.url,
        pids: replicas.map(({ pid }) => pid),
        requests,
        replicaUrls,
      };
    }
    const targets = embeddedRequests.flatMap((request, index) =>
      MODES.map((mode) => {
        const { requests, ...server } = servers[mode];
        return { ...requests[index], ...server, name: `${mode}: ${request.name}` };
      }),
    );
    const queries = new Map();
    process.stderr.write('  counting PostgreSQL statements per request\n');
    for (const target of targets) {
      if (target.name.startsWith('embedded: ')) continue;
      const [mode, requestName] = target.name.split(': ');
      const counted = queries.get(requestName) ?? {};
      counted[mode] = await queriesPerRequest(target, target.replicaUrls);
      queries.set(requestName, counted);
    }
    const rows = await runRounds([
      { name: 'node:http hello (baseline)', url: hello.bare.url, pid: hello.bare.pid, path: '/' },
      ...targets,
    ]);
    console.table(rows);
    console.table(summary(rows, queries));
    console.log(
      `RSS after the load: embedded ${serve.rssMb()} MB; apiserver replicas ` +
        clusters
          .map(
            ({ suffix, replicas }) =>
              `${replicas.map((replica) => replica.rssMb()).join(' and ')} MB${suffix}`,
          )
          .join('; '),
    );
  } finally {
    for (const cluster of clusters) await cluster.stop();
    await kubeApi.stop();
  }
});
