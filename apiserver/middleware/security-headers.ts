import type { ServerResponse } from 'node:http';
import { presetHeader } from '../../observability/http-response.js';

/** API answers are per caller and often secret: never sniffed as another type, never cached. */
export function setSecurityHeaders(res: ServerResponse): void {
  presetHeader(res, 'X-Content-Type-Options', 'nosniff');
  presetHeader(res, 'Cache-Control', 'no-store');
}
