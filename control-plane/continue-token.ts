import { badRequest } from './store-errors.js';
import { isJsonObject } from './json-value.js';

/** Where a paged list stopped: the last key handed out, for the resource it was listed from. */
export interface ListPosition {
  resource: string;
  namespace: string;
  name: string;
}

/** An opaque token for the next page. Not tied to history: continuing reads the current state after the key. */
export function encodeContinue(position: ListPosition): string {
  const body = JSON.stringify({ v: 1, r: position.resource, ns: position.namespace, n: position.name });
  return Buffer.from(body, 'utf8').toString('base64url');
}

/** The position a token names; a token that is not one of ours, or is for another resource, is a `BadRequest`. */
export function decodeContinue(token: string, resource: string): ListPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: not a token this server issued');
  }
  if (
    !isJsonObject(decoded) ||
    decoded.v !== 1 ||
    typeof decoded.r !== 'string' ||
    typeof decoded.ns !== 'string' ||
    typeof decoded.n !== 'string'
  ) {
    throw badRequest('continue key is not valid: not a token this server issued');
  }
  if (decoded.r !== resource) {
    throw badRequest('continue key is not valid: it was issued for a different resource');
  }
  return { resource, namespace: decoded.ns, name: decoded.n };
}
