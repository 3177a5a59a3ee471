// HTTP throughput of the REST facade against a bare node:http server, in one run.
//
//   npm run bench:http                  # builds, then 10 s per target
//   BENCH_DURATION=30 npm run bench:http
//
// Each server runs in its own child process (this file, started with `serve <kind>`), so the
// load generator never shares an event loop with the server it measures. Targets run one after
// another against already-running servers; to add one (an authenticated GET, say), add an entry
// to TARGETS.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const CONNECTIONS = 50;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_SECONDS = Math.min(3, DURATION_SECONDS);
const CHILD_START_TIMEOUT_MS = 30_000;
const CHILD_STOP_TIMEOUT_MS = 10_000;

/**
 * `server` names the child that serves the target; `status` is the answer expected (200 when
 * omitted); `auth: 'bearer'` sends the access token of the user the child registered. The first
 * target is the baseline.
 */
const TARGETS = [
  { name: 'node:http hello (baseline)', server: 'bare', method: 'GET', path: '/' },
  { name: 'cloudplane GET /health', server: 'cloudplane', method: 'GET', path: '/health' },
  {
    name: 'cloudplane GET validated route',
    server: 'cloudplane',
    method: 'GET',
    path: '/api/v1/usage/bench?limit=10&offset=5',
  },
  {
    name: 'cloudplane GET /v1/auth/me (bearer token)',
    server: 'cloudplane',
    method: 'GET',
    path: '/v1/auth/me',
    auth: 'bearer',
  },
  {
    name: 'cloudplane GET unknown route',
    server: 'cloudplane',
    method: 'GET',
    path: '/api/v1/nothing',
    status: 404,
  },
];

const dist = (relative) => new URL(`../../dist/${relative}`, import.meta.url).href;

async function serveBare() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"hello":"world"}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function serveCloudplane() {
  const [
    { createApp },
    { startServer },
    { defineRoute },
    pagination,
    { loadConfig },
    store,
    db,
    log,
    metrics,
    { createAccounts },
  ] = await Promise.all([
    import(dist('apiserver/app.js')),
    import(dist('apiserver/server.js')),
    import(dist('apiserver/routing/route.js')),
    import(dist('apiserver/routing/pagination.js')),
    import(dist('cli/config.js')),
    import(dist('controllers/runtime/object-store/sqlite-store.js')),
    import(dist('database/database.js')),
    import(dist('observability/logger.js')),
    import(dist('observability/metrics.js')),
    import(dist('accounts/index.js')),
  ]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-'));
  const config = loadConfig({
    CLOUDPLANE_DATA_DIR: dataDir,
    CLOUDPLANE_LOG_LEVEL: 'warn',
    CLOUDPLANE_RATE_LIMIT_PER_MINUTE: '10000000',
    CLOUDPLANE_RATE_LIMIT_PER_SECOND: '1000000',
    CLOUDPLANE_ACCESS_TOKEN_TTL: '86400',
  });
  const logger = log.createLogger(config.logLevel);
  const sqlitePath = path.join(dataDir, 'cloudplane.db');
  const registry = metrics.createMetrics();
  const objectStore = store.openEmbeddedStore({ path: sqlitePath, kinds: [], logger });
  const database = await db.openDatabase({ sqlitePath, logger, metrics: registry });
  // A route through the whole pipeline: admission, query coercion and validation, style-B answer.
  const benchRoutes = {
    area: 'usage',
    routes: [
      defineRoute({
        method: 'get',
        path: '/api/v1/usage/bench',
        area: 'usage',
        auth: 'public',
        summary: 'Benchmark route',
        request: {
          query: {
            type: 'object',
            properties: pagination.limitOffsetProperties({ defaultLimit: 20, maxLimit: 100 }),
          },
        },
        responses: { 200: { description: 'The window asked for', schema: { type: 'object' } } },
        async handler({ query }) {
          return { data: { limit: query.limit, offset: query.offset } };
        },
      }),
    ],
  };
  const accounts = await createAccounts({ database, config, logger });
  const app = createApp({
    config,
    logger,
    metrics: registry,
    store: objectStore,
    database,
    routes: [benchRoutes, ...accounts.routes],
    authenticator: accounts.authenticator,
  });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  return {
    port: server.port,
    bearer: await registerBenchUser(server.url),
    async close() {
      await server.close();
      await database.close();
      await objectStore.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A real account, registered and signed in through the API; answers its access token. */
async function registerBenchUser(url) {
  const account = { email: 'bench@example.com', password: 'benchmark passphrase', name: 'Bench' };
  const post = (path, body) =>
    globalThis.fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const registered = await post('/v1/auth/register', account);
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const login = await post('/v1/auth/login', { email: account.email, password: account.password });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  return (await login.json()).data.token;
}

async function runChild(kind) {
  const running = kind === 'bare' ? await serveBare() : await serveCloudplane();
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (message) => {
    if (message === 'rss') process.send({ rss: process.memoryUsage().rss });
    if (message === 'bearer') process.send({ bearer: running.bearer ?? null });
    if (message === 'stop') void stop();
  });
  process.send({ port: running.port });
}

function nextMessage(child, key, timeoutMs) {
  return new Promise((resolve, reject) => {
    const settle = (outcome) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`no ${key} from child within ${timeoutMs} ms`))),
      timeoutMs,
    );
    const onMessage = (message) => {
      if (message && key in message) settle(() => resolve(message[key]));
    };
    const onExit = (code) =>
      settle(() => reject(new Error(`child exited with ${code} before sending ${key}`)));
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function startChild(kind) {
  const child = fork(fileURLToPath(import.meta.url), ['serve', kind], { stdio: 'inherit' });
  const port = await nextMessage(child, 'port', CHILD_START_TIMEOUT_MS);
  child.send('bearer');
  const bearer = await nextMessage(child, 'bearer', CHILD_START_TIMEOUT_MS);
  return { kind, child, url: `http://127.0.0.1:${port}`, bearer };
}

async function stopChild({ child }) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function load(server, target, seconds) {
  return autocannon({
    url: `${server.url}${target.path}`,
    method: target.method,
    headers: target.auth === 'bearer' ? { authorization: `Bearer ${server.bearer}` } : {},
    connections: CONNECTIONS,
    duration: seconds,
  });
}

function row(target, result, baseline, rssBytes) {
  const rate = result.requests.average;
  return {
    target: target.name,
    'req/s': Math.round(rate),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'vs node:http': baseline ? `${((rate / baseline) * 100).toFixed(1)}%` : '100.0%',
    'server RSS MB': Math.round(rssBytes / 1024 / 1024),
    'errors+timeouts': result.errors + result.timeouts,
    'unexpected status': Object.entries(result.statusCodeStats)
      .filter(([code]) => Number(code) !== (target.status ?? 200))
      .reduce((sum, [, stats]) => sum + stats.count, 0),
  };
}

async function bench() {
  const kinds = [...new Set(TARGETS.map((target) => target.server))];
  const deadlineMs = (TARGETS.length * (WARMUP_SECONDS + DURATION_SECONDS + 10) + kinds.length * 40) * 1000;
  const children = [];
  const deadline = setTimeout(() => {
    console.error(`benchmark exceeded ${deadlineMs / 1000} s; stopping`);
    for (const { child } of children) child.kill('SIGKILL');
    process.exit(1);
  }, deadlineMs);
  try {
    for (const kind of kinds) children.push(await startChild(kind));
    const byKind = new Map(children.map((running) => [running.kind, running]));
    console.log(
      `${TARGETS.length} targets, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s each`,
    );
    const rows = [];
    let baseline;
    for (const target of TARGETS) {
      const server = byKind.get(target.server);
      await load(server, target, WARMUP_SECONDS);
      await delay(200);
      const result = await load(server, target, DURATION_SECONDS);
      server.child.send('rss');
      const rss = await nextMessage(server.child, 'rss', CHILD_START_TIMEOUT_MS);
      baseline ??= result.requests.average;
      rows.push(row(target, result, baseline, rss));
      console.log(`  done: ${target.name}`);
    }
    console.table(rows);
  } finally {
    await Promise.all(children.map(stopChild));
    clearTimeout(deadline);
  }
}

if (process.argv[2] === 'serve') await runChild(process.argv[3]);
else await bench();
