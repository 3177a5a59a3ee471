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

/**
 * Reads a JSON body of at most `limitBytes`. A body of another media type is refused with 415
 * (`unsupported_media_type`) rather than parsed or ignored; an absent body is left undefined.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES });
  return (req, res, next) => {
    if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
      next(unsupportedMediaType(req.headers['content-type'] ?? 'no content type'));
      return;
    }
    parse(req, res, (error?: unknown) => {
      if (error === undefined) next();
      else next(translate(error as BodyParserError, limitBytes, req.headers['content-type'] ?? ''));
    });
  };
}
