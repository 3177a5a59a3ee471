import type { Response } from 'express';
import type { SuccessStyle } from './areas.js';
import type { RouteResult } from './route.js';

/** Writes a handler's result in the success style of its area. */
export function writeResult(
  res: Response,
  result: RouteResult,
  style: SuccessStyle,
  requestId: string,
): void {
  if (result.headers) res.set(result.headers);
  if (result.raw) {
    res
      .status(result.status ?? 200)
      .type(result.raw.contentType)
      .send(result.raw.content);
    return;
  }
  if (result.data === undefined) {
    res.status(result.status ?? 204).end();
    return;
  }
  if (style === 'bare') {
    writeJson(res, result.status ?? 200, result.data);
    return;
  }
  const meta = result.page
    ? {
        total: result.page.total,
        page: result.page.page,
        per_page: result.page.perPage,
        request_id: requestId,
      }
    : { request_id: requestId };
  writeJson(res, result.status ?? 200, { data: result.data, meta });
}

/**
 * A JSON answer written straight to the socket: what `res.json` does for these bodies (type,
 * length, no body for HEAD) without its content negotiation and freshness checks, which every
 * answer of this API (`no-store`, no ETag) would pay for nothing.
 */
function writeJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text);
}
