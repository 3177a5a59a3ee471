/** Confluent Schema Registry's wire conventions: its content type, its error bodies, its query flags. */
import type { Request, Response } from 'express';
import { SchemaRegistryError, type SubjectVersion } from '../../schema-registry/index.js';

export const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export function send(res: Response, status: number, body: unknown): void {
  res.status(status).type(CONTENT_TYPE).send(JSON.stringify(body));
}

/** `{error_code, message}` with the status the code stands for. */
export function sendError(res: Response, error: SchemaRegistryError): void {
  send(res, error.status, { error_code: error.errorCode, message: error.message });
}

export function param(req: Request, name: string): string {
  return String((req.params as Record<string, string>)[name]);
}

/** A `?flag=true` query parameter. */
export function flag(req: Request, name: string): boolean {
  return String(req.query[name] ?? '').toLowerCase() === 'true';
}

/** The request body as an object; 422 when it is another JSON value. */
export function bodyOf(req: Request): Record<string, unknown> {
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
