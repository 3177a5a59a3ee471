import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { ApiError, codeOfStatus, internalError, renderError, toApiError } from '../errors.js';
import { API_AREAS, errorStyleOfPath } from '../routing/areas.js';
import { requestIdOf, requestState } from '../routing/request-state.js';
import { targetOf } from '../routing/route-paths.js';
import { setHeaders, writeJson } from '../routing/responses.js';

/** Client errors raised by express itself or its body parser (an undecodable path parameter, for one). */
function expressClientError(error: unknown): ApiError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  // The router's decodeURIComponent of a path parameter: percent-encoding that is not UTF-8.
  if (error instanceof URIError) {
    return new ApiError(
      400,
      'invalid_request',
      `the request path is not valid percent-encoded UTF-8: ${error.message}`,
    );
  }
  const { status, expose, message } = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499 || expose !== true) return undefined;
  return new ApiError(status, codeOfStatus(status), String(message));
}

/**
 * Answers a failure in the error style of the area that was asked. Anything not meant for the
 * client becomes a 500 `internal_error` carrying only the request id; the real error goes to the
 * access log line of the request, with the same id.
 */
export function answerError(error: unknown, req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) {
    req.log.error({ err: error }, 'request failed after its response started');
    res.destroy();
    return;
  }
  let answer = toApiError(error) ?? expressClientError(error);
  if (!answer) {
    res.err = error instanceof Error ? error : new Error(String(error));
    answer = internalError();
  }
  const state = requestState(req);
  const style = state.route
    ? API_AREAS[state.route.area].errors
    : errorStyleOfPath(state.template ?? targetOf(req.url).path);
  if (answer.headers) setHeaders(res, answer.headers);
  writeJson(res, answer.status, renderError(answer, style, requestIdOf(req)));
}

/** `answerError` for the routers express serves (the Vault-compatible API and its peers). */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => answerError(error, req, res);
