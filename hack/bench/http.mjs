// HTTP throughput of the REST facade against a bare node:http server, in one run.
//
//   npm run bench:http                  # builds, then 10 s per target
//   BENCH_DURATION=30 npm run bench:http
//
// Each server runs in its own child process (this file, started with `serve <kind>`), so the
// load generator never shares an event loop with the server it measures. Targets run one after
// another against already-running servers; to add one (an authenticated GET, say), add an entry
// to TARGETS.
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import {
  childRss,
  CONNECTIONS,
  deadline,
  dist,
  DURATION_SECONDS,
  load,
  registerBenchUser,
  serveAsChild,
  servePlatform,
  startChild,
  stopChild,
  unexpectedStatuses,
  WARMUP_SECONDS,
} from './harness.mjs';

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

async function serveBare() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"hello":"world"}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A route through the whole pipeline: admission, query coercion and validation, style-B answer. */
async function benchRoutes() {
  const [{ defineRoute }, pagination] = await Promise.all([
    import(dist('apiserver/routing/route.js')),
    import(dist('apiserver/routing/pagination.js')),
  ]);
  return [
    {
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
    },
  ];
}

function serveCloudplane() {
  return servePlatform({
    routes: benchRoutes,
    prepare: async (url) => ({ bearer: await registerBenchUser(url) }),
  });
}

async function runChild(kind) {
  serveAsChild(kind === 'bare' ? await serveBare() : await serveCloudplane());
}

function headersFor(server, target) {
  return target.auth === 'bearer' ? { authorization: `Bearer ${server.details.bearer}` } : {};
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
    'unexpected status': unexpectedStatuses(result, target.status ?? 200),
  };
}

async function bench() {
  const kinds = [...new Set(TARGETS.map((target) => target.server))];
  const deadlineMs = (TARGETS.length * (WARMUP_SECONDS + DURATION_SECONDS + 10) + kinds.length * 40) * 1000;
  const children = [];
  const cancelDeadline = deadline(deadlineMs / 1000, children);
  try {
    for (const kind of kinds) children.push(await startChild(import.meta.url, kind));
    const byKind = new Map(children.map((running) => [running.kind, running]));
    console.log(
      `${TARGETS.length} targets, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s each`,
    );
    const rows = [];
    let baseline;
    for (const target of TARGETS) {
      const server = byKind.get(target.server);
      const request = { method: target.method, path: target.path, headers: headersFor(server, target) };
      await load(server.url, request, WARMUP_SECONDS);
      await delay(200);
      const result = await load(server.url, request, DURATION_SECONDS);
      const rss = await childRss(server);
      baseline ??= result.requests.average;
      rows.push(row(target, result, baseline, rss));
      console.log(`  done: ${target.name}`);
    }
    console.table(rows);
  } finally {
    await Promise.all(children.map(stopChild));
    cancelDeadline();
  }
}

if (process.argv[2] === 'serve') await runChild(process.argv[3]);
else await bench();
