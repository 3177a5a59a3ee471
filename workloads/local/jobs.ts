/**
 * Stacks' bootstrap jobs in the embedded mode. Recorded by default: running a stack's commands on
 * the platform's host is the operator's choice (`CLOUDPLANE_LOCAL_JOBS=enabled`). Then each job
 * is a local process in its own process group, with only the variables it was given, in a fresh
 * folder, killed with its group when its time is up. The image cannot be honoured and is said so.
 *
 * What became of a job is kept in memory only: after a restart `observe` answers undefined, which
 * is how the caller learns to start it again (a run the earlier process left is stopped first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { executableOnPath } from '../../config/workloads.js';
import { WorkloadError, type JobObservation, type JobRuntime, type JobWorkload } from '../runtime.js';
import type { LocalEngineOptions } from './engine.js';

export const RECORDED_JOB =
  'bootstrap jobs are recorded in the embedded mode; set CLOUDPLANE_LOCAL_JOBS=enabled to run them as local processes';

/** How long a process group has between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** How long output still open after the process ended (a descendant holding it) is waited for. */
const OUTPUT_GRACE_MS = 2_000;

/** The local job runtime; `close` kills the process groups of the jobs still running. */
export interface LocalJobs extends JobRuntime {
  close(): Promise<void>;
}

/** Keeps the first `limit` bytes of a job's output and says where it was cut. */
class CappedLog {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private truncated = false;

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    const kept = Buffer.concat(this.chunks).toString('utf8');
    if (!this.truncated) return kept;
    return `${kept}${kept.endsWith('\n') ? '' : '\n'}… log truncated at ${this.limit} bytes\n`;
  }
}

interface TrackedJob {
  observation: JobObservation;
  log?: CappedLog;
  child?: ChildProcess;
  /** Settles once the job's observation is final. */
  finished: Promise<void>;
}

/** Signals a process group, which may be gone already. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

const seconds = (ms: number): string => `${ms / 1000}s`;

/** Beside the job's folder, which is emptied when the job starts. */
const pidFileOf = (cwd: string): string => `${cwd}.pid`;

/** A job's folder is named after its id, so the id must be one path segment. */
function folderName(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a job's folder`);
  }
  return id;
}

export function localJobs(options: LocalEngineOptions): LocalJobs {
  const { config } = options;
  const logger = options.logger.child({ component: 'local-jobs' });
  const jobs = new Map<string, Promise<TrackedJob>>();
  const folderOf = (job: JobWorkload) => path.join(config.dir, 'jobs', folderName(job.id));

  /** The program to run: a path as given, a bare name looked up on the platform's PATH. */
  const executableOf = (name: string): string | undefined =>
    name.includes('/') ? name : executableOnPath(name, process.env.PATH);

  function run(job: JobWorkload, cwd: string): TrackedJob {
    const ran = `ran locally; image ${job.image} ignored`;
    const startedAt = new Date().toISOString();
    const tracked: TrackedJob = {
      observation: { realization: 'real', state: 'running', exitCode: null, message: ran, startedAt },
      finished: Promise.resolve(),
    };
    const end = (outcome: Pick<JobObservation, 'state' | 'exitCode' | 'message'>) => {
      tracked.observation = { ...tracked.observation, ...outcome, completedAt: new Date().toISOString() };
      tracked.child = undefined;
      logger.info({ job: job.id, state: outcome.state, exitCode: outcome.exitCode }, 'job ended');
    };

    const [name, ...args] = job.command;
    const executable = name === undefined ? undefined : executableOf(name);
    if (!executable) {
      end({ state: 'failed', exitCode: null, message: `command not found: ${name ?? '(none given)'}` });
      return tracked;
    }
    const log = new CappedLog(config.jobLogLimitBytes);
    const child = spawn(executable, args, {
      cwd,
      env: job.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tracked.log = log;
    tracked.child = child;
    child.stdout.on('data', (chunk: Buffer) => log.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => log.append(chunk));

    let timedOut = false;
    let forceKill: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid, 'SIGTERM');
      forceKill = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    }, job.timeoutMs);

    tracked.finished = new Promise<void>((resolve) => {
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(deadline);
        const message =
          error.code === 'ENOENT'
            ? `command not found: ${name}`
            : `could not start ${name}: ${error.message}`;
        end({ state: 'failed', exitCode: null, message });
        resolve();
      });
      child.on('exit', (code, signal) => {
        clearTimeout(deadline);
        clearTimeout(forceKill);
        // The job is its main process: what it left running in its group goes with it.
        signalGroup(child.pid, 'SIGKILL');
        const outcome: Pick<JobObservation, 'state' | 'exitCode' | 'message'> = timedOut
          ? { state: 'failed', exitCode: code, message: `timed out after ${seconds(job.timeoutMs)}; ${ran}` }
          : code === null
            ? { state: 'failed', exitCode: null, message: `killed by ${signal}; ${ran}` }
            : code === 0
              ? { state: 'succeeded', exitCode: 0, message: ran }
              : { state: 'failed', exitCode: code, message: `exited with code ${code}; ${ran}` };
        // Output still in the pipes is read before the job counts as ended, but a descendant that
        // left the group and holds them open does not keep it running.
        let settled = false;
        const settle = () => {
          if (settled) return;
          settled = true;
          clearTimeout(grace);
          child.stdout.destroy();
          child.stderr.destroy();
          end(outcome);
          resolve();
        };
        const grace = setTimeout(settle, OUTPUT_GRACE_MS);
        child.once('close', settle);
      });
    });
    logger.info({ job: job.id, executable }, 'job started');
    return tracked;
  }

  /** Records the job, or makes its folder and runs it. */
  async function launch(job: JobWorkload): Promise<TrackedJob> {
    if (!config.localJobs) {
      const observation: JobObservation = {
        realization: 'recorded',
        state: 'recorded',
        exitCode: null,
        message: RECORDED_JOB,
      };
      return { observation, finished: Promise.resolve() };
    }
    const cwd = folderOf(job);
    await stopOrphan(cwd);
    await fs.rm(cwd, { recursive: true, force: true });
    await fs.mkdir(cwd, { recursive: true, mode: 0o700 });
    const tracked = run(job, cwd);
    const pid = tracked.child?.pid;
    if (pid !== undefined) {
      // Written before start answers, so the answer is what the job was when it began.
      writeFileSync(pidFileOf(cwd), String(pid), { mode: 0o600 });
      void tracked.finished.then(() => fs.rm(pidFileOf(cwd), { force: true }));
    }
    return tracked;
  }

  /**
   * A job this process started before it was killed runs on in its own group; it is stopped
   * before the job starts again, so two runs never overlap. The pid is trusted only while the
   * process still works in the job's folder: a pid reused by another process is left alone.
   */
  async function stopOrphan(cwd: string): Promise<void> {
    const pid = Number(await fs.readFile(pidFileOf(cwd), 'utf8').catch(() => ''));
    if (!Number.isInteger(pid) || pid <= 0) return;
    const workingIn = await fs.readlink(`/proc/${pid}/cwd`).catch(() => undefined);
    if (workingIn === path.resolve(cwd)) {
      logger.warn({ pid }, 'stopping a run of the job left by an earlier process');
      signalGroup(pid, 'SIGKILL');
    }
    await fs.rm(pidFileOf(cwd), { force: true });
  }

  return {
    async start(job) {
      let tracked = jobs.get(job.id);
      if (!tracked) {
        // Kept before it settles, so a second start of the same id meanwhile waits for this one.
        tracked = launch(job);
        jobs.set(job.id, tracked);
        tracked.catch(() => jobs.delete(job.id));
      }
      return { ...(await tracked).observation };
    },

    async observe(job) {
      const tracked = await jobs.get(job.id);
      return tracked && { ...tracked.observation };
    },

    async logs(job) {
      const tracked = await jobs.get(job.id);
      return tracked?.log?.text() ?? '';
    },

    async remove(job) {
      const tracked = await jobs.get(job.id)?.catch(() => undefined);
      if (tracked?.child) signalGroup(tracked.child.pid, 'SIGKILL');
      await tracked?.finished;
      jobs.delete(job.id);
      await stopOrphan(folderOf(job));
      await fs.rm(folderOf(job), { recursive: true, force: true });
    },

    async close() {
      const settled = await Promise.allSettled(jobs.values());
      const running = settled.flatMap((each) =>
        each.status === 'fulfilled' && each.value.child ? [each.value] : [],
      );
      for (const tracked of running) signalGroup(tracked.child?.pid, 'SIGKILL');
      await Promise.all(running.map((tracked) => tracked.finished));
    },
  };
}
