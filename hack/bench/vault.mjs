// Vault operations through the REST API against raw AES-256-GCM in-process, in one run.
//
//   npm run bench:vault                  # builds, then 10 s per target
//   BENCH_DURATION=30 npm run bench:vault
//
// The app runs in a child process with an auto-unseal cluster made by a registered user; each
// target is a REST call with that user's bearer token and a 1 KiB value. The baseline is
// node:crypto AES-256-GCM of 1 KiB in a tight loop here, timed per operation with hrtime.
import { createCipheriv, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  childRss,
  CONNECTIONS,
  deadline,
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

const VALUE = randomBytes(768).toString('base64');
const PLAINTEXT = randomBytes(1024);

/** REST targets; `{cluster}` stands for the cluster id. */
const TARGETS = [
  {
    name: 'secret write (1 KiB)',
    method: 'POST',
    path: '/api/v1/vault/{cluster}/secret/bench/written',
    body: { data: { value: VALUE } },
  },
  { name: 'secret read (1 KiB)', method: 'GET', path: '/api/v1/vault/{cluster}/secret/bench/read' },
  {
    name: 'transit encrypt (1 KiB)',
    method: 'POST',
    path: '/api/v1/vault/{cluster}/encrypt/bench',
    body: { plaintext: PLAINTEXT.toString('base64') },
  },
];

function serveCloudplane() {
  return servePlatform({
    prepare: async (url) => {
      const bearer = await registerBenchUser(url);
      return { bearer, cluster: await prepareCluster(url, bearer) };
    },
  });
}

async function prepareCluster(url, bearer) {
  const call = async (method, requestPath, body, expected) => {
    const response = await globalThis.fetch(`${url}${requestPath}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== expected) {
      throw new Error(`${method} ${requestPath} answered ${response.status}: ${await response.text()}`);
    }
    return response.json();
  };
  const { id } = await call('POST', '/api/v1/vault', { name: 'bench', auto_unseal: true }, 201);
  await call('POST', `/api/v1/vault/${id}/secret/bench/read`, { data: { value: VALUE } }, 200);
  return id;
}

/** AES-256-GCM of 1 KiB with a fresh IV per operation, for `seconds`: ops/s, p50 and p99 in ms. */
function rawAesGcm(seconds) {
  const key = randomBytes(32);
  const samples = new Float64Array(1 << 23);
  let count = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(Math.round(seconds * 1e9));
  let now = started;
  while (now < until) {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.update(PLAINTEXT);
    cipher.final();
    cipher.getAuthTag();
    const finished = process.hrtime.bigint();
    if (count < samples.length) samples[count] = Number(finished - now) / 1e6;
    count += 1;
    now = finished;
  }
  const recorded = samples.subarray(0, Math.min(count, samples.length)).sort();
  const percentile = (p) => recorded[Math.min(recorded.length - 1, Math.floor(recorded.length * p))];
  return {
    rate: count / (Number(now - started) / 1e9),
    p50: percentile(0.5),
    p99: percentile(0.99),
  };
}

function row(name, rate, p50, p99, baseline, extra = {}) {
  return {
    target: name,
    'ops/s': Math.round(rate),
    'p50 ms': Number(p50.toFixed(4)),
    'p99 ms': Number(p99.toFixed(4)),
    'vs AES-GCM': `${((rate / baseline) * 100).toFixed(3)}%`,
    'AES-GCM is x faster': Number((baseline / rate).toFixed(1)),
    ...extra,
  };
}

async function bench() {
  const children = [];
  const cancelDeadline = deadline(
    TARGETS.length * (WARMUP_SECONDS + DURATION_SECONDS + 10) + DURATION_SECONDS + 60,
    children,
  );
  try {
    const server = await startChild(import.meta.url, 'cloudplane');
    children.push(server);
    const { bearer, cluster } = server.details;
    console.log(
      `${TARGETS.length} REST targets, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s each; raw AES-256-GCM for ${DURATION_SECONDS} s`,
    );
    rawAesGcm(WARMUP_SECONDS);
    const raw = rawAesGcm(DURATION_SECONDS);
    console.log('  done: raw AES-256-GCM');
    const rows = [row('node:crypto AES-256-GCM 1 KiB (in-process)', raw.rate, raw.p50, raw.p99, raw.rate)];
    for (const target of TARGETS) {
      const request = {
        method: target.method,
        path: target.path.replace('{cluster}', cluster),
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: target.body === undefined ? undefined : JSON.stringify(target.body),
      };
      await load(server.url, request, WARMUP_SECONDS);
      await delay(200);
      const result = await load(server.url, request, DURATION_SECONDS);
      const rss = await childRss(server);
      rows.push(
        row(target.name, result.requests.average, result.latency.p50, result.latency.p99, raw.rate, {
          'server RSS MB': Math.round(rss / 1024 / 1024),
          'errors+timeouts': result.errors + result.timeouts,
          'unexpected status': unexpectedStatuses(result, 200),
        }),
      );
      console.log(`  done: ${target.name}`);
    }
    console.table(rows);
  } finally {
    await Promise.all(children.map(stopChild));
    cancelDeadline();
  }
}

if (process.argv[2] === 'serve') serveAsChild(await serveCloudplane());
else await bench();
