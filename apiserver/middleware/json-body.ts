import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import {
  ApiError,
  badRequest,
  fromBodyParserError,
  payloadTooLarge,
  unsupportedMediaType,
} from '../errors.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** `application/json` or a `+json` suffix of any application type, parameters aside. */
function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[^/\s]+\+json$/.test(type);
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

interface BodyParserError {
  type?: string;
  message: string;
}

function translate(error: BodyParserError, limitBytes: number, contentType: string): unknown {
  const refusal = fromBodyParserError(error, limitBytes);
  if (refusal) return refusal;
  switch (error.type) {
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

/** The longest path parameter any route takes; ids and names are far shorter. */
export const MAX_PARAMETER_LENGTH = 256;

/** C0 and C1 controls (NUL included) and the bidirectional overrides and isolates. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_IN_IDENTIFIERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a body field names or identifies something, as opposed to free text. */
function isIdentifierField(key: string): boolean {
  return key === 'name' || key === 'id' || key.endsWith('_id') || key === 'email';
}

/** What is wrong with a body: too deep, or a string no field may hold. */
export type BodyProblem = { kind: 'too_deep' } | { kind: 'unsafe'; field: string; problem: string };

/**
 * The first problem of a parsed body, found in one walk without recursion: nesting deeper than
 * `MAX_JSON_DEPTH`; a string that is not valid Unicode (a lone surrogate, anywhere); or one of
 * the request's own fields that names or identifies something holding a control character or a
 * bidirectional override. Undefined when there is none.
 */
export function bodyProblem(value: unknown): BodyProblem | undefined {
  const stack: [unknown, string, number][] = [[value, '', 1]];
  while (stack.length > 0) {
    const [current, field, depth] = stack.pop()!;
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) {
        return { kind: 'unsafe', field, problem: 'is not valid Unicode (a lone surrogate)' };
      }
      // Only the request's own fields: nested objects (secret data, templates) are the caller's text.
      if (!field.includes('.') && isIdentifierField(field) && UNSAFE_IN_IDENTIFIERS.test(current)) {
        return { kind: 'unsafe', field, problem: 'holds a control character or a bidirectional override' };
      }
    } else if (current !== null && typeof current === 'object') {
      if (depth > MAX_JSON_DEPTH) return { kind: 'too_deep' };
      for (const [key, child] of Object.entries(current)) {
        if (LONE_SURROGATE.test(key)) {
          return { kind: 'unsafe', field: field || key, problem: 'has a key that is not valid Unicode' };
        }
        stack.push([child, field ? `${field}.${key}` : key, depth + 1]);
      }
    }
  }
  return undefined;
}

/** The first path parameter that is too long or holds what no identifier may; undefined when none. */
export function unsafeParameter(
  params: Record<string, string>,
): { field: string; problem: string } | undefined {
  for (const [field, value] of Object.entries(params)) {
    if (value.length > MAX_PARAMETER_LENGTH)
      return { field, problem: `is longer than ${MAX_PARAMETER_LENGTH} characters` };
    if (UNSAFE_IN_IDENTIFIERS.test(value) || LONE_SURROGATE.test(value)) {
      return { field, problem: 'holds a control character, a bidirectional override or invalid Unicode' };
    }
  }
  return undefined;
}

function refusal(where: 'body' | 'params', found: { field: string; problem: string }) {
  return badRequest(`${found.field} ${found.problem}`, {
    code: 'invalid_characters',
    details: { fields: [{ in: where, field: found.field, rule: 'characters', message: found.problem }] },
  });
}

/** Refuses a path parameter no identifier may be before the route does any work. */
export function refuseUnsafeParameters(params: Record<string, string>): void {
  const found = unsafeParameter(params);
  if (found) throw refusal('params', found);
}

function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const length = headers['content-length'];
  return typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : undefined;
}

/** Reads a request's body: the parsed JSON, or undefined when there was none. */
export type BodyReader = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

/**
 * Reads a JSON body of at most `limitBytes`. A body of another media type is refused with 415
 * (`unsupported_media_type`) rather than parsed or ignored; an absent body is undefined; a
 * body nesting deeper than `MAX_JSON_DEPTH` is a 400 (`too_deep`).
 */
export function jsonBody(limitBytes: number): BodyReader {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES });
  return (req, res) => {
    if (hasBody(req.headers) && !isJsonMediaType(req.headers['content-type'])) {
      return Promise.reject(unsupportedMediaType(req.headers['content-type'] ?? 'no content type'));
    }
    return new Promise((resolve, reject) => {
      parse(req, res, (error?: unknown) => {
        if (error !== undefined) {
          reject(translate(error as BodyParserError, limitBytes, req.headers['content-type'] ?? ''));
          return;
        }
        const body = (req as { body?: unknown }).body;
        const problem = bodyProblem(body);
        if (problem?.kind === 'too_deep') {
          reject(badRequest(`request body nests deeper than ${MAX_JSON_DEPTH} levels`, { code: 'too_deep' }));
        } else if (problem) {
          reject(refusal('body', problem));
        } else {
          resolve(body);
        }
      });
    });
  };
}

/** The fields of a body that carries something, for the refusal to name. */
function fieldsOf(body: unknown): string[] {
  return isPlainObject(body) ? Object.keys(body) : [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * For operations that take no body. Clients send one anyway (axios, Python's `json={}`, SDKs
 * and Vault clients send `{}` or `null` on every POST), so an empty body, `{}` and `null` are
 * read and accepted as nothing. A body that carries something is refused before any work: 413
 * past the body limit, 400 (`invalid_json`) when it is not JSON, 400 (`unexpected_body`)
 * naming its fields otherwise, so nothing a client sent is silently ignored.
 */
export function noBody(
  limitBytes: number,
): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | undefined {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES, strict: false });
  return (req, res, path) => {
    // Nothing to read: answered at once rather than with a promise to wait for.
    if (!hasBody(req.headers)) return undefined;
    const length = declaredLength(req.headers);
    if (length !== undefined && length > limitBytes) return Promise.reject(payloadTooLarge(limitBytes));
    const where = `${req.method} ${path}`;
    const unexpected = (body: unknown) => {
      const fields = fieldsOf(body);
      return badRequest(
        fields.length > 0
          ? `${where} takes no request body; not accepted: ${fields.join(', ')}`
          : `${where} takes no request body`,
        {
          code: 'unexpected_body',
          details: {
            fields: fields.map((field) => ({
              in: 'body',
              field,
              rule: 'additionalProperties',
              message: `${field} is not an accepted field`,
            })),
          },
        },
      );
    };
    if (!isJsonMediaType(req.headers['content-type'])) return Promise.reject(unexpected(undefined));
    return new Promise((resolve, reject) => {
      parse(req, res, (error?: unknown) => {
        if (error !== undefined) {
          reject(translate(error as BodyParserError, limitBytes, req.headers['content-type'] ?? ''));
          return;
        }
        const body = (req as { body?: unknown }).body;
        const carriesNothing =
          body === undefined || body === null || (isPlainObject(body) && Object.keys(body).length === 0);
        if (carriesNothing) resolve();
        else reject(unexpected(body));
      });
    });
  };
}
