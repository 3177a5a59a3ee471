// What the benchmarks share: servers in child processes (so the load generator never shares an
// event loop with the server it measures), a registered user, and autocannon runs.
import fs from 'node:fs';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

export const CONNECTIONS = 50;
const CHILD_START_TIMEOUT_MS = 30_000;
const CHILD_STOP_TIMEOUT_MS = 10_000;

/**
 * The arguments of `cloudplane serve` as `npm start` runs it (package.json's start script: node's
 * flags, the entry point, the command), so a benchmark measures the process a person starts;
 * `checkout` (a directory URL) names another copy of the project, this one by default.
 */
export function serveArgs(checkout = new URL('../../', import.meta.url)) {
  const packageUrl = new URL('package.json', checkout);
  const [node, ...args] = JSON.parse(fs.readFileSync(packageUrl, 'utf8')).scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`package.json's start script does not run node: ${node}`);
  return args.map((arg) => (arg.endsWith('.js') ? fileURLToPath(new URL(arg, checkout)) : arg));
}

/** The compiled module at `relative` under dist/, for `import()`. */
export const dist = (relative) => new URL(`../../dist/${relative}`, import.meta.url).href;

/**
 * A checkout built beside this one (`BENCH_BEFORE=<dir>`; `npx tsc -p tsconfig.build.json` there)
 * whose server runs in the same rounds, its figures named with `BEFORE` in front:
 *   git archive HEAD~1 | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/ &&
 *   (cd /tmp/before && npx tsc -p tsconfig.build.json)
 */
export const BEFORE_ROOT = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
export const BEFORE = 'before ';

/** The compiled module at `relative` under `root`'s dist/ (this checkout's when none). */
export const distOf = (root, relative) =>
  root ? pathToFileURL(path.join(root, 'dist', relative)).href : dist(relative);

/** The names measured against the build beside: each one's name without `BEFORE`, and its own. */
export function comparedWithBefore(names) {
  return names.filter((name) => name.startsWith(BEFORE)).map((name) => [name.slice(BEFORE.length), name]);
}

/**
 * Runs in the child: reports `running.port` and answers the parent's messages (`details`: what
 * the server set up, such as a bearer token; `rss`; `cpu`: user + system CPU time so far, µs;
 * `stop`).
 */
export function serveAsChild(running) {
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (message) => {
    if (message === 'rss') process.send({ rss: process.memoryUsage().rss });
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send({ cpu: user + system });
    }
    if (message === 'details') process.send({ details: running.details ?? {} });
    if (message === 'stop') void stop();
  });
  process.send({ port: running.port });
}

export function nextMessage(child, key, timeoutMs = CHILD_START_TIMEOUT_MS) {
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

export async function stopChild({ child }) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Kills the children and exits when the run takes longer than `seconds`; answers the canceller. */
export function deadline(seconds, children) {
  const timer = setTimeout(() => {
    console.error(`benchmark exceeded ${seconds} s; stopping`);
    for (const { child } of children) child.kill('SIGKILL');
    process.exit(1);
  }, seconds * 1000);
  return () => clearTimeout(timer);
}

/** A real account, registered and signed in through the API; answers its access token. */
export async function registerBenchUser(url) {
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

/** One autocannon run of `request` ({method, path, headers?, body?}) against `url`. */
export function load(url, request, seconds) {
  return autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    headers: request.headers ?? {},
    body: request.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
}

/** Answers other than `expected` in an autocannon result. */
export function unexpectedStatuses(result, expected) {
  return Object.entries(result.statusCodeStats)
    .filter(([code]) => Number(code) !== expected)
    .reduce((sum, [, stats]) => sum + stats.count, 0);
}
