import type { ServerResponse } from 'node:http';

/** API answers are per caller and often secret: never sniffed as another type, never cached. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
}
