/** Kafka Connect's wire conventions: JSON bodies, `{error_code, message}` errors, its query flags. */
import type { Request, Response } from 'express';
import { ConnectError } from '../../connect/index.js';

export function send(res: Response, status: number, body?: unknown): void {
  if (body === undefined) {
    res.status(status).end();
    return;
  }
  res.status(status).type('application/json').send(JSON.stringify(body));
}

/** `{error_code, message}`, the code being the status. */
export function sendError(res: Response, error: ConnectError): void {
  send(res, error.status, { error_code: error.status, message: error.message });
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
