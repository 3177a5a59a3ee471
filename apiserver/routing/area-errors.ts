/**
 * The error handler of an area that answers in a wire format of its own (the Vault-compatible
 * API, Kafka Connect's REST API, the schema registry). Which error means which status, code and
 * message is decided once, in `errors.ts`; an area only says which refusals it describes and
 * renders the answer in its format. Anything else is logged and answered as the area's 500.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from '../../observability/logger.js';
import { fromBodyParserError, internalError, type ApiError } from '../errors.js';

export interface AreaErrors {
  /** The answer for one of the area's own refusals, or undefined for any other error. */
  refusal(error: unknown): ApiError | undefined;
  /** Writes the answer in the area's wire format. */
  render(res: Response, answer: ApiError): void;
  /** The answer for an unexpected failure; by default `internal_error`, with nothing of the cause. */
  internal?(error: unknown): ApiError;
  logger: Logger;
  /** The log line of an unexpected failure. */
  failure: string;
  /** The area's body limit, which a too-large refusal names. */
  limitBytes: number;
}

export function areaErrorHandler(area: AreaErrors): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const answer = area.refusal(error) ?? fromBodyParserError(error, area.limitBytes);
    if (answer) {
      area.render(res, answer);
      return;
    }
    area.logger.error({ err: error, method: req.method, path: req.path }, area.failure);
    area.render(res, area.internal?.(error) ?? internalError());
  };
}
