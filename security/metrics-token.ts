import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Whether a scrape of `/metrics` may be served: always when no token is configured, otherwise only
 * with `Authorization: Bearer <token>`. Compared in constant time.
 */
export function metricsScrapeAllowed(
  expectedToken: string | undefined,
  authorization: string | undefined,
): boolean {
  if (expectedToken === undefined) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(match[1]), digest(expectedToken));
}
