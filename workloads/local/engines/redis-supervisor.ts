import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import type { Logger } from '../../../observability/logger.js';

/** What the supervisor needs to run one database's `redis-server`. */
export interface RedisProcessSpec {
  /** The database id, which names the process in logs. */
  id: string;
  /** Given to `redis-server` as its only argument; the password lives in it, never on argv. */
  confFile: string;
  /** The server's `dir`: a process found working there is this database's server. */
  dataDir: string;
  /** The server's `pidfile`, how a server left by an earlier platform process is found. */
  pidFile: string;
}

export interface RedisSupervisorOptions {
  logger: Logger;
  serverPath?: string;
  /** The wait before restarting a server that died, doubling on each quick death. */
  restartDelay?: { initialMs: number; maxMs: number };
  /** How long a server may take to stop on SIGTERM (it writes its data) before SIGKILL. */
  stopTimeoutMs?: number;
}

export type ProcessHealth =
  | { state: 'running'; pid: number }
  /** `failures`: how many times in a row it died before it had run a while. */
  | { state: 'restarting'; reason: string; failures: number }
  | { state: 'stopped' };

export const REDIS_SERVER = '/usr/bin/redis-server';

const DEFAULTS = {
  serverPath: REDIS_SERVER,
  restartDelay: { initialMs: 500, maxMs: 10_000 },
  stopTimeoutMs: 10_000,
};

type Settings = typeof DEFAULTS & { logger: Logger };

/** A server that ran this long was healthy, whatever ended it. */
const STABLE_RUN_MS = 10_000;

/** Redis's own log line: `pid:role date time level message`, where level `#` is a warning. */
const REDIS_LOG_LINE = /^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ ([.*#-]) (.*)$/;

/** Advice about the host (memory overcommit, transparent huge pages), not about this server. */
const HOST_ADVICE = /^WARNING /;

/** The server's last two warnings (why it would not start), never its ordinary chatter. */
class LastWords {
  private readonly lines: string[] = [];

  hear(chunk: Buffer): void {
    for (const raw of chunk.toString('utf8').split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const logged = REDIS_LOG_LINE.exec(line);
      if (logged && (logged[1] !== '#' || HOST_ADVICE.test(logged[2]!))) continue;
      this.lines.push(logged ? logged[2]! : line);
      if (this.lines.length > 2) this.lines.shift();
    }
  }

  toString(): string {
    return this.lines.join('; ');
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** One database's server: started, restarted when it dies, stopped on request. */
class SupervisedProcess {
  private child: ChildProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartReason = '';
  private delayMs: number;
  private failures = 0;
  private stopping = false;
  readonly lastWords = new LastWords();

  constructor(
    private readonly spec: RedisProcessSpec,
    private readonly settings: Settings,
  ) {
    this.delayMs = settings.restartDelay.initialMs;
  }

  launch(): void {
    this.restartTimer = undefined;
    const startedAt = Date.now();
    const child = spawn(this.settings.serverPath, [this.spec.confFile], {
      cwd: this.spec.dataDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => this.lastWords.hear(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.lastWords.hear(chunk));
    child.once('error', (error) =>
      this.ended(child, `could not start: ${error.message}`, Date.now() - startedAt),
    );
    child.once('exit', (code, signal) =>
      this.ended(child, describeExit(code, signal), Date.now() - startedAt),
    );
    this.settings.logger.info({ database: this.spec.id, pid: child.pid }, 'redis-server started');
  }

  private ended(child: ChildProcess, how: string, ranMs: number): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.stopping) return;
    const { initialMs, maxMs } = this.settings.restartDelay;
    // A server that ran a while died of something new: start counting again from the short wait.
    if (ranMs >= STABLE_RUN_MS) {
      this.delayMs = initialMs;
      this.failures = 0;
    }
    this.failures++;
    const delay = this.delayMs;
    this.delayMs = Math.min(delay * 2, maxMs);
    const said = this.lastWords.toString();
    this.restartReason = `redis-server exited (${how})${said ? `: ${said}` : ''}; restarting in ${delay} ms`;
    this.settings.logger.warn(
      { database: this.spec.id, exit: how, restartInMs: delay, said },
      'redis-server exited; restarting it',
    );
    this.restartTimer = setTimeout(() => this.launch(), delay);
    this.restartTimer.unref();
  }

  health(): ProcessHealth {
    if (this.child?.pid !== undefined) return { state: 'running', pid: this.child.pid };
    if (this.restartTimer)
      return { state: 'restarting', reason: this.restartReason, failures: this.failures };
    return { state: 'stopped' };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => {
      this.settings.logger.warn({ database: this.spec.id }, 'redis-server ignored SIGTERM; killing it');
      child.kill('SIGKILL');
    }, this.settings.stopTimeoutMs);
    await exited;
    clearTimeout(killer);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exitsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Supervises one `redis-server` per database. A server survives only as long as the platform's
 * process: `stopAll` ends them (their data stays on disk), and `start` after a restart brings
 * one back, first stopping a server an earlier platform process left behind in the same place.
 */
export class RedisSupervisor {
  private readonly processes = new Map<string, SupervisedProcess>();
  private readonly settings: Settings;

  constructor(options: RedisSupervisorOptions) {
    this.settings = { ...DEFAULTS, ...options };
  }

  /** Starts the database's server unless this supervisor already runs it (or is about to restart it). */
  async start(spec: RedisProcessSpec): Promise<void> {
    if (this.processes.has(spec.id)) return;
    await this.stopLeftover(spec);
    const supervised = new SupervisedProcess(spec, this.settings);
    this.processes.set(spec.id, supervised);
    supervised.launch();
  }

  health(id: string): ProcessHealth {
    return this.processes.get(id)?.health() ?? { state: 'stopped' };
  }

  /** The server's last warnings, for an error message when it does not answer. */
  lastWords(id: string): string {
    return this.processes.get(id)?.lastWords.toString() ?? '';
  }

  /** Stops the database's server, whoever started it. Idempotent. */
  async stop(spec: RedisProcessSpec): Promise<void> {
    const supervised = this.processes.get(spec.id);
    this.processes.delete(spec.id);
    await supervised?.stop();
    await this.stopLeftover(spec);
    if (supervised) this.settings.logger.info({ database: spec.id }, 'redis-server stopped');
  }

  /** Stops every server this supervisor started. */
  async stopAll(): Promise<void> {
    const all = [...this.processes.entries()];
    this.processes.clear();
    await Promise.all(all.map(([, supervised]) => supervised.stop()));
  }

  /**
   * A server whose pid file names a live process working in this database's directory is a
   * leftover of an earlier platform process (which died without stopping it); it holds the port
   * and the files, so it goes before a supervised one starts.
   */
  private async stopLeftover(spec: RedisProcessSpec): Promise<void> {
    const pid = Number((await fs.readFile(spec.pidFile, 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
    const [cwd, dataDir] = await Promise.all([
      fs.readlink(`/proc/${pid}/cwd`).catch(() => undefined),
      fs.realpath(spec.dataDir).catch(() => spec.dataDir),
    ]);
    if (cwd !== dataDir) return;
    this.settings.logger.warn(
      { database: spec.id, pid },
      'stopping a redis-server left by an earlier process',
    );
    process.kill(pid, 'SIGTERM');
    if (await exitsWithin(pid, this.settings.stopTimeoutMs)) return;
    process.kill(pid, 'SIGKILL');
    await exitsWithin(pid, this.settings.stopTimeoutMs);
  }
}
