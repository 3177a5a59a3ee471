import type { Response } from 'express';
import { cloneJson, isJsonObject, type JsonObject } from '../json-value.js';
import { pruneMetadata } from '../object-meta.js';
import { badRequest } from './kube-status.js';
import type { FieldValidationMode } from './request-options.js';
import type { ServedResource } from './served-resources.js';

/** A write body ready for the store, with what `fieldValidation` asks done about undeclared fields. */
export interface CheckedBody {
  object: JsonObject;
  /** What the store is told: `Strict` rejects undeclared fields, `Ignore` drops them. */
  storeValidation: 'Strict' | 'Ignore';
  /** `Warning` header values to send once the write succeeds. */
  warnings: string[];
}

/** A `Warning` header value as the apiserver writes it: `299 - "unknown field \"spec.foo\""`. */
function warning(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Checks a write body against the kind: `Strict` leaves the refusal to the store (400 naming every
 * undeclared field); `Warn` and `Ignore` drop the undeclared fields here, `Warn` noting each one.
 */
export function checkBody(resource: ServedResource, body: unknown, mode: FieldValidationMode): CheckedBody {
  if (!isJsonObject(body)) {
    throw badRequest(`the body must be a JSON object describing a ${resource.descriptor.kind}`);
  }
  if (mode === 'Strict') return { object: cloneJson(body), storeValidation: 'Strict', warnings: [] };
  const object = cloneJson(body);
  const unknown = [
    ...(isJsonObject(object.metadata) ? pruneMetadata(object.metadata) : []),
    ...(resource.schema?.prune(object) ?? []),
  ];
  const warnings = mode === 'Warn' ? unknown.map((field) => warning(`unknown field "${field}"`)) : [];
  return { object, storeValidation: 'Ignore', warnings };
}

export function sendWarnings(res: Response, warnings: readonly string[]): void {
  for (const value of warnings) res.append('Warning', value);
}
