import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The client's `X-Request-Id` when it is short and plain enough to put in logs and bodies as is,
 * otherwise a new uuid.
 */
export function requestIdFor(req: IncomingMessage): string {
  const offered = req.headers['x-request-id'];
  return typeof offered === 'string' && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
}
