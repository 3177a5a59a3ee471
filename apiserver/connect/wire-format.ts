/** Kafka Connect's wire conventions: JSON bodies, `{error_code, message}` errors, its query flags. */
import type { Request, Response } from 'express';
import { ConnectError } from '../../connect/index.js';
import type { ApiError } from '../errors.js';

export function send(res: Response, status: number, body?: unknown): void {
  if (body === undefined) {
    res.status(status).end();
    return;
  }
  res.status(status).type('application/json').send(JSON.stringify(body));
}

const MESSAGES: Record<string, string> = {
  payload_too_large: 'request body too large',
  invalid_json: 'the request body is not valid JSON',
};

/** `{error_code, message}`, the code being the status; a 401 names Connect's realm. */
export function sendError(res: Response, answer: ApiError): void {
  if (answer.status === 401) res.set('www-authenticate', 'Basic realm="connect"');
  send(res, answer.status, { error_code: answer.status, message: MESSAGES[answer.code] ?? answer.message });
}

export function param(req: Request, name: string): string {
  return String((req.params as Record<string, string>)[name]);
}

/** A `?flag=true` query parameter. */
export function flag(req: Request, name: string): boolean {
  return String(req.query[name] ?? '').toLowerCase() === 'true';
}

/** Every value of a repeatable query parameter (`?expand=status&expand=info`). */
export function values(req: Request, name: string): string[] {
  const value = req.query[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** A task id from a path; 404 for anything that is not one. */
export function taskIdOf(req: Request): number {
  const text = param(req, 'task');
  if (!/^\d{1,9}$/.test(text)) throw new ConnectError(404, `Task ${text} not found`);
  return Number(text);
}
