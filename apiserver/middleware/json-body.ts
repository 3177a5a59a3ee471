import express, { type RequestHandler } from 'express';
import { ApiError, badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

interface BodyParserError {
  type?: string;
  message: string;
}

function translate(error: BodyParserError, limitBytes: number, contentType: string): unknown {
  switch (error.type) {
    case 'entity.too.large':
      return payloadTooLarge(limitBytes);
    case 'entity.parse.failed':
      return badRequest(`request body is not valid JSON: ${error.message}`, { code: 'invalid_json' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', error.message, { content_type: contentType });
    case 'request.aborted':
    case 'request.size.invalid':
      return badRequest(error.message);
    default:
      return error;
  }
}

/** How deep a body may nest; deeper is refused before any code walks it recursively. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests deeper than `limit` (arrays and objects), found without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function declaredLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const length = headers['content-length'];
  return typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : undefined;
}

/**
 * Reads a JSON body of at most `limitBytes`. A body of another media type is refused with 415
 * (`unsupported_media_type`) rather than parsed or ignored; an absent body is left undefined; a
 * body nesting deeper than `MAX_JSON_DEPTH` is a 400 (`too_deep`).
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES });
  return (req, res, next) => {
    if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
      next(unsupportedMediaType(req.headers['content-type'] ?? 'no content type'));
      return;
    }
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(translate(error as BodyParserError, limitBytes, req.headers['content-type'] ?? ''));
      } else if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) {
        next(badRequest(`request body nests deeper than ${MAX_JSON_DEPTH} levels`, { code: 'too_deep' }));
      } else {
        next();
      }
    });
  };
}

/**
 * For operations that take no body: one is refused before any work, 413 past the body limit and
 * 400 (`unexpected_body`) otherwise, so nothing a client sent is silently ignored.
 */
export function noBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req.headers)) {
      next();
      return;
    }
    const length = declaredLength(req.headers);
    if (length !== undefined && length > limitBytes) next(payloadTooLarge(limitBytes));
    else next(badRequest(`${req.method} ${req.path} takes no request body`, { code: 'unexpected_body' }));
  };
}
