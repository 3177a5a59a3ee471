import type { Request } from 'express';
import { parse as parseYaml } from 'yaml';
import { badRequest } from './kube-status.js';
import { decodeProtobufObject, PROTOBUF_TYPE } from './protobuf-objects.js';

const YAML_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml']);

/**
 * The decoded body of a write: JSON for the JSON media types, YAML (a superset of JSON) for
 * `application/yaml` and server-side apply, and the built-in kinds kubectl sends as protobuf. An
 * empty or undecodable body is a 400.
 */
export function decodeBody(req: Request, contentType: string): unknown {
  if (contentType === PROTOBUF_TYPE && Buffer.isBuffer(req.body)) return decodeProtobufObject(req.body);
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (raw.trim() === '') throw badRequest('the request has no body: it must describe the object');
  try {
    return YAML_TYPES.has(contentType) ? (parseYaml(raw) as unknown) : (JSON.parse(raw) as unknown);
  } catch (error) {
    const what = YAML_TYPES.has(contentType) ? 'YAML' : 'JSON';
    throw badRequest(`the body of the request is not valid ${what}: ${(error as Error).message}`);
  }
}

/** The body when there may be none (DELETE takes its options either way). */
export function optionalBody(req: Request): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(`the body of the request is not valid JSON: ${(error as Error).message}`);
  }
}
