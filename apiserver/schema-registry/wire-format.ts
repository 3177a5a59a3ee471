/** Confluent Schema Registry's wire conventions: its content type, its error bodies, its query flags. */
import type { ServerResponse } from 'node:http';
import {
  SchemaRegistryError,
  type ClusterRegistry,
  type SubjectVersion,
} from '../../schema-registry/index.js';
import type { ApiError } from '../errors.js';
import { writeResult } from '../routing/responses.js';
import type { WireRequest } from '../routing/wire-api.js';

export const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** A registry request: `locals` is the registry of the cluster it addresses, once authorized. */
export type RegistryRequest = WireRequest<ClusterRegistry>;

/** A body of `contentType` as it is (charset utf-8 added), no envelope. */
export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  writeResult(res, { status, raw: { contentType, content: text } }, 'bare', '');
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, CONTENT_TYPE, JSON.stringify(body));
}

const MESSAGES: Record<string, string> = {
  payload_too_large: 'request body too large',
  invalid_json: 'the request body is not valid JSON',
};

/**
 * `{error_code, message}` with the status the code stands for: Confluent's own code where the
 * refusal has one, the status otherwise; a 401 names the registry's realm.
 */
export function sendError(res: ServerResponse, answer: ApiError): void {
  if (answer.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="schema-registry"');
  const code = answer.details.error_code;
  send(res, answer.status, {
    error_code: typeof code === 'number' ? code : answer.status,
    message: MESSAGES[answer.code] ?? answer.message,
  });
}

export function param(req: RegistryRequest, name: string): string {
  return String(req.params[name]);
}

/** A `?flag=true` query parameter. */
export function flag(req: RegistryRequest, name: string): boolean {
  return String(req.query[name] ?? '').toLowerCase() === 'true';
}

/** The request body as an object; 422 when it is another JSON value. */
export function bodyOf(req: RegistryRequest): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new SchemaRegistryError(422, 'the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A schema id from a path; 40403 for anything that is not one. */
export function schemaIdOf(text: string): number {
  const id = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new SchemaRegistryError(40403, 'Schema not found');
  return id;
}

/** A version as Confluent answers it: schemaType and references only when they say something. */
export function versionBody(version: SubjectVersion) {
  return {
    subject: version.subject,
    version: version.version,
    id: version.id,
    ...(version.schemaType === 'AVRO' ? {} : { schemaType: version.schemaType }),
    ...(version.references.length > 0 ? { references: version.references } : {}),
    schema: version.schema,
  };
}
