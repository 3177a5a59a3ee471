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
  res.status(result.status ?? 200);
  if (style === 'bare') {
    res.json(result.data);
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
  res.json({ data: result.data, meta });
}
