import { spawn } from 'node:child_process';
import { WorkloadError } from '../runtime.js';

export interface CommandOptions {
  env?: Record<string, string>;
  /** Written to the command's standard input, then closed. */
  input?: string | Buffer;
  /** The command's standard output goes to this file descriptor instead of being collected. */
  stdoutFd?: number;
  /** The command's standard input is read from this file descriptor. */
  stdinFd?: number;
  cwd?: string;
  uid?: number;
  gid?: number;
}

/**
 * Runs a program to its end and returns what it printed. A failure is a `WorkloadError` with
 * `reason` and the program's own last lines of standard error, which is what a user can act on;
 * arguments are never echoed, since they may hold a connection string.
 */
export async function runCommand(
  program: string,
  args: readonly string[],
  reason: string,
  options: CommandOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      uid: options.uid,
      gid: options.gid,
      stdio: [
        options.stdinFd ?? (options.input === undefined ? 'ignore' : 'pipe'),
        options.stdoutFd ?? 'pipe',
        'pipe',
      ],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', (error) =>
      reject(
        new WorkloadError(reason, `${program} could not be started: ${error.message}`, { cause: error }),
      ),
    );
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(stdout);
      const said = stderr.trim().split('\n').slice(-3).join(' ').trim();
      reject(
        new WorkloadError(
          reason,
          `${program} failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`,
        ),
      );
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
