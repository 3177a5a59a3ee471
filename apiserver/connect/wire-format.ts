/** Kafka Connect's wire conventions: JSON bodies, `{error_code, message}` errors, its query flags. */
import type { ServerResponse } from 'node:http';
import { ConnectError, type ConnectCluster, type ConnectService } from '../../connect/index.js';
import type { ApiError } from '../errors.js';
import { writeJson } from '../routing/responses.js';
import type { WireRequest } from '../routing/wire-api.js';

/** The service and the cluster a request addresses, found once it was authorized. */
export interface ConnectLocals {
  connect: ConnectService;
  cluster: ConnectCluster;
}

export type ConnectRequest = WireRequest<ConnectLocals>;

export function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.statusCode = status;
    res.end();
    return;
  }
  writeJson(res, status, body);
}

const MESSAGES: Record<string, string> = {
  payload_too_large: 'request body too large',
  invalid_json: 'the request body is not valid JSON',
};

/** `{error_code, message}`, the code being the status; a 401 names Connect's realm. */
export function sendError(res: ServerResponse, answer: ApiError): void {
  if (answer.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="connect"');
  send(res, answer.status, { error_code: answer.status, message: MESSAGES[answer.code] ?? answer.message });
}

export function param(req: ConnectRequest, name: string): string {
  return String(req.params[name]);
}

/** A `?flag=true` query parameter. */
export function flag(req: ConnectRequest, name: string): boolean {
  return String(req.query[name] ?? '').toLowerCase() === 'true';
}

/** Every value of a repeatable query parameter (`?expand=status&expand=info`). */
export function values(req: ConnectRequest, name: string): string[] {
  const value = req.query[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** A task id from a path; 404 for anything that is not one. */
export function taskIdOf(req: ConnectRequest): number {
  const text = param(req, 'task');
  if (!/^\d{1,9}$/.test(text)) throw new ConnectError(404, `Task ${text} not found`);
  return Number(text);
}
