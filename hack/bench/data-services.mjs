// Create-to-available time of managed databases on the embedded platform: `cloudplane serve` in a
// child process with a data dir of its own, a registered user, then databases created one after
// another through the REST API, each timed from the POST until GET says `available`.
//
//   npm run bench:data-services                  # 5 of each engine
//   BENCH_DATABASES=9 npm run bench:data-services
//   CLOUDPLANE_POSTGRES_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:data-services
//
// The first postgresql database also starts the private PostgreSQL (initdb on a fresh data dir):
// it is reported apart as the cold start, and the median is over the rest.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { registerBenchUser, serveArgs } from './harness.mjs';

const count = Number(process.env.BENCH_DATABASES ?? 5);
const engines = (process.env.BENCH_ENGINES ?? 'postgresql,redis').split(',');

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-data-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, serveArgs(), {
  env: {
    ...process.env,
    CLOUDPLANE_DATA_DIR: dataDir,
    PORT: String(port),
    CLOUDPLANE_KUBE_API_PORT: '0',
    CLOUDPLANE_LOG_LEVEL: 'warn',
    CLOUDPLANE_QUOTA_DATABASES: 'none',
    CLOUDPLANE_QUOTA_DATABASE_STORAGE_GB: 'none',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

try {
  for (let started = Date.now(); ; await delay(100)) {
    if (Date.now() - started > 60_000) throw new Error('the server did not answer /health within 60 s');
    if (
      await globalThis.fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
  }
  const token = await registerBenchUser(url);
  const call = async (method, route, body) => {
    const response = await globalThis.fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  console.log(`create-to-available, ${count} databases of each engine, one at a time`);
  console.log('engine       cold s   median s   p90 s    max s');
  for (const engine of engines) {
    const seconds = [];
    for (let index = 0; index < count; index += 1) {
      const started = globalThis.performance.now();
      const created = await call('POST', '/v1/databases', {
        name: `${engine}-${index}`,
        engine,
        ...(engine === 'redis' ? { memory_mb: 32 } : { storage_gb: 1 }),
      });
      if (created.status !== 201)
        throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.body)}`);
      const id = created.body.data.id;
      for (;;) {
        const current = (await call('GET', `/v1/databases/${id}`)).body.data;
        if (current.status === 'available') break;
        if (current.status === 'error') throw new Error(`${engine} database in error: ${current.message}`);
        if (globalThis.performance.now() - started > 120_000)
          throw new Error(`${engine} database not available within 120 s`);
        await delay(20);
      }
      seconds.push((globalThis.performance.now() - started) / 1000);
      process.stderr.write('.');
    }
    process.stderr.write('\n');
    const [cold, ...warm] = seconds;
    const sorted = (warm.length > 0 ? warm : seconds).slice().sort((a, b) => a - b);
    const format = (value) => value.toFixed(2).padStart(8);
    console.log(
      `${engine.padEnd(12)}${format(cold)}${format(percentile(sorted, 0.5))}${format(percentile(sorted, 0.9))}${format(sorted.at(-1))}`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
