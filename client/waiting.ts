/**
 * `--wait` and `--timeout`: poll a resource until it settles, with a spinner, and give up after
 * the timeout (10 minutes unless told).
 */
import { CloudplaneError } from '../sdk/index.js';
import { ClientError, UsageError } from './failures.js';
import { startSpinner } from './progress.js';
import type { Terminal } from './terminal.js';

export const DEFAULT_TIMEOUT = '10m';
const POLL_MS = 500;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration such as `90s`, `10m`, `1h` or `1m30s`; a bare number is seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== trimmed) {
    throw new UsageError(`${JSON.stringify(text)} is not a duration such as 30s, 10m or 1h`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit!]!, 0);
}

/** What one poll saw: still going (with what to show), done, or failed with why. */
export type PollResult<T> =
  | { state: 'pending'; status: string }
  | { state: 'done'; value: T; status: string }
  | { state: 'failed'; message: string };

export interface WaitOptions<T> {
  terminal: Terminal;
  /** What is awaited, e.g. `VPC prod`; the spinner reads `<what>: <status>`. */
  what: string;
  timeoutMs: number;
  poll(): Promise<PollResult<T>>;
  /** Defaults to 500 ms. */
  intervalMs?: number;
}

export async function waitFor<T>(options: WaitOptions<T>): Promise<T> {
  const spinner = startSpinner(options.terminal, `${options.what}: waiting`);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    let result: PollResult<T>;
    try {
      result = await options.poll();
    } catch (error) {
      spinner.fail(options.what);
      throw error;
    }
    if (result.state === 'done') {
      spinner.succeed(`${options.what}: ${result.status}`);
      return result.value;
    }
    if (result.state === 'failed') {
      spinner.fail(`${options.what}: ${result.message}`);
      throw new ClientError(`${options.what}: ${result.message}`);
    }
    spinner.update(`${options.what}: ${result.status}`);
    if (Date.now() >= deadline) {
      spinner.fail(`${options.what}: still ${result.status}`);
      throw new ClientError(`${options.what} is still ${result.status} after the timeout`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? POLL_MS));
  }
}

/** A poll for something being deleted: done once the API answers 404 or shows it deleted. */
export function untilGone(
  readStatus: () => Promise<string | undefined>,
): () => Promise<PollResult<undefined>> {
  return async () => {
    try {
      const status = (await readStatus()) ?? 'deleting';
      return status === 'deleted'
        ? { state: 'done', value: undefined, status }
        : { state: 'pending', status };
    } catch (error) {
      if (error instanceof CloudplaneError && error.status === 404) {
        return { state: 'done', value: undefined, status: 'deleted' };
      }
      throw error;
    }
  };
}
