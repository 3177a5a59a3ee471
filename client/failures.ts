/**
 * What a client command ends with when it does not succeed, and how that reads on stderr:
 * exit 1 for an error (the server's message and request id), 2 for a command used wrongly.
 */
import { CloudplaneError } from '../sdk/index.js';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** The command was used wrongly: a missing flag, a value that cannot be read. Exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure the client itself decided (a timeout, a failed execution). Exits 1. */
export class ClientError extends Error {
  override readonly name = 'ClientError';
}

/** The line printed for an error, e.g. `error: VPC abc not found (request id 4f1c…)`. */
export function describeFailure(error: unknown): string {
  if (error instanceof CloudplaneError) {
    const requestId = error.requestId ? ` (request id ${error.requestId})` : '';
    return `error: ${error.message}${requestId}`;
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return `error: cannot reach the server${cause ? `: ${cause}` : ''}`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError ? EXIT_USAGE : EXIT_ERROR;
}
