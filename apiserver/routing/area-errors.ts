/**
 * The error handler of an area that answers in a wire format of its own (the Vault-compatible
 * API, Kafka Connect's REST API, the schema registry). Which error means which status, code and
 * message is decided once, in `errors.ts`; an area only says which refusals it describes and
 * renders the answer in its format. Anything else is logged and answered as the area's 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from '../../observability/logger.js';
import { ApiError, fromBodyParserError, internalError } from '../errors.js';

export interface AreaErrors<R extends ServerResponse = Response> {
  /** The answer for one of the area's own refusals, or undefined for any other error. */
  refusal(error: unknown): ApiError | undefined;
  /** Writes the answer in the area's wire format. */
  render(res: R, answer: ApiError): void;
  /** The answer for an unexpected failure; by default `internal_error`, with nothing of the cause. */
  internal?(error: unknown): ApiError;
  logger: Logger;
  /** The log line of an unexpected failure. */
  failure: string;
  /** The area's body limit, which a too-large refusal names. */
  limitBytes: number;
}

export function areaErrorHandler(area: AreaErrors): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => answerAreaError(area, error, req, res);
}

/** Answers `error` in the area's wire format; what the area does not describe is logged as a failure. */
export function answerAreaError<R extends ServerResponse>(
  area: AreaErrors<R>,
  error: unknown,
  req: IncomingMessage,
  res: R,
): void {
  const answer = area.refusal(error) ?? fromBodyParserError(error, area.limitBytes) ?? clientError(error);
  if (answer) {
    area.render(res, answer);
    return;
  }
  area.logger.error({ err: error, method: req.method, path: req.url?.split('?', 1)[0] }, area.failure);
  area.render(res, area.internal?.(error) ?? internalError());
}

/** A refusal of the request itself (a path that is not valid percent-encoding): the client's 4xx. */
function clientError(error: unknown): ApiError | undefined {
  return error instanceof ApiError && error.status < 500 ? error : undefined;
}
