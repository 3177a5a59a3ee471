import type { ServerResponse } from 'node:http';
import { presetHeader } from '../../observability/http-response.js';
import type { SuccessStyle } from './areas.js';
import type { RouteResult } from './route.js';

/** Writes a handler's result in the success style of its area. */
export function writeResult(
  res: ServerResponse,
  result: RouteResult,
  style: SuccessStyle,
  requestId: string,
): void {
  if (result.headers) setHeaders(res, result.headers);
  if (result.raw) {
    const { contentType, content } = result.raw;
    const text = typeof content === 'string';
    writeBody(
      res,
      result.status ?? 200,
      text && !/;\s*charset=/i.test(contentType) ? `${contentType}; charset=utf-8` : contentType,
      content,
    );
    return;
  }
  if (result.data === undefined) {
    res.statusCode = result.status ?? 204;
    res.end();
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

export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) presetHeader(res, name, headers[name]!);
}

/** A JSON answer: type and length, and no body for HEAD. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  writeBody(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function writeBody(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.statusCode = status;
  presetHeader(res, 'Content-Type', contentType);
  presetHeader(res, 'Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  if (res.req.method === 'HEAD') res.end();
  else res.end(body);
}
