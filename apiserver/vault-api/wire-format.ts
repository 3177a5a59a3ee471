import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { VaultCaller } from '../../vault/vault-engine.js';
import type { CreatedToken } from '../../vault/tokens.js';
import { VaultError } from '../../vault/vault-error.js';
import type { ApiError } from '../errors.js';
import { writeJson } from '../routing/responses.js';
import type { WireRequest } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';

/** A request of the Vault-compatible API: `locals` is the cluster its address names. */
export type VaultApiRequest = WireRequest<AddressedCluster>;

/** A request body as Vault clients send it: a JSON object, or nothing. */
export type VaultBody = Record<string, unknown>;

export function bodyOf(req: VaultApiRequest): VaultBody {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new VaultError('invalid', 'the request body must be a JSON object');
  }
  return body as VaultBody;
}

/** Vault's response envelope around `data`. */
export function dataResponse(data: unknown) {
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data,
    wrap_info: null,
    warnings: null,
    auth: null,
  };
}

/** Vault's response envelope for a login or token creation: the token is in `auth`. */
export function authResponse(token: CreatedToken) {
  return {
    ...dataResponse(null),
    auth: {
      client_token: token.client_token,
      accessor: token.accessor,
      policies: token.policies,
      token_policies: token.policies,
      metadata: token.meta,
      lease_duration: token.ttl,
      renewable: true,
      entity_id: '',
      token_type: token.type,
      orphan: true,
      num_uses: 0,
    },
  };
}

export function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.statusCode = status;
    res.end();
    return;
  }
  writeJson(res, status, body);
}

/**
 * The status and `{"errors": [...]}` body of an answer, as Vault words them: any token problem
 * is "permission denied" (403, never 401), a sealed cluster "Vault is sealed" (503), a missing
 * path, secret or role 404 with an empty list.
 */
export function vaultErrorBody(answer: ApiError): { status: number; body: { errors: string[] } } {
  switch (answer.code) {
    case 'unauthorized':
    case 'permission_denied':
      return { status: 403, body: { errors: ['permission denied'] } };
    case 'sealed':
      return { status: 503, body: { errors: ['Vault is sealed'] } };
    case 'not_found':
      return { status: 404, body: { errors: [] } };
    // Vault answers a failed check-and-set or a mount path in use with 400, not 409.
    case 'conflict':
      return { status: 400, body: { errors: [answer.message] } };
    case 'payload_too_large':
      return { status: 413, body: { errors: ['request body too large'] } };
    case 'invalid_json':
      return { status: 400, body: { errors: ['failed to parse JSON input'] } };
    case 'internal_error':
      return { status: 500, body: { errors: ['internal error'] } };
    default:
      return { status: answer.status, body: { errors: [answer.message] } };
  }
}

/**
 * The caller of a token-authenticated endpoint. A request without `X-Vault-Token` carries the
 * empty token, which the engine refuses: the engine treats an absent token as the platform itself.
 */
export function tokenCaller(req: VaultApiRequest): VaultCaller {
  const header = req.headers['x-vault-token'];
  return { ...clientOf(req), token: typeof header === 'string' ? header.trim() : '' };
}

/** The caller of an endpoint Vault serves without a token (seal status, unseal, logins). */
export function anonymousCaller(req: VaultApiRequest): VaultCaller {
  return { ...clientOf(req), anonymous: true };
}

function clientOf(req: VaultApiRequest): Pick<VaultCaller, 'clientAddress' | 'userAgent'> {
  const userAgent = req.headers['user-agent'];
  return {
    clientAddress: req.ip,
    userAgent: typeof userAgent === 'string' ? userAgent : '',
  };
}

/** A `*path` parameter (express 5 answers its segments) joined back into a path. */
export function pathParam(req: VaultApiRequest, name: string): string {
  return req.params[name] ?? '';
}

/** A named parameter of the route. */
export function param(req: VaultApiRequest, name: string): string {
  return req.params[name] ?? '';
}

/**
 * Whether a GET is Vault's LIST. Node's HTTP parser refuses the LIST method itself, so clients
 * use `?list=true` (node-vault: `noCustomHTTPVerbs: true`), which Vault accepts too.
 */
export function isList(req: VaultApiRequest): boolean {
  const list = req.query.list;
  return list === 'true' || list === '1';
}

export function optionalString(body: VaultBody, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new VaultError('invalid', `${key} must be a string`);
  return value;
}

export function requiredString(body: VaultBody, key: string): string {
  const value = optionalString(body, key);
  if (value === undefined || value === '') throw new VaultError('invalid', `missing ${key}`);
  return value;
}

/** A list as Vault takes it: a JSON array of strings or one comma-separated string. */
export function stringList(body: VaultBody, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  const entries = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(entries) || !entries.every((entry) => typeof entry === 'string')) {
    throw new VaultError('invalid', `${key} must be a list of strings or a comma-separated string`);
  }
  return entries.map((entry: string) => entry.trim()).filter((entry) => entry !== '');
}

const DURATION_PART = /(\d+)(h|m|s)/g;
const DURATION = /^(?:\d+[hms])+$/;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** A duration as Vault takes it: whole seconds, or a string such as "90", "45s", "10m", "1h30m". */
export function durationSeconds(body: VaultBody, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (typeof value === 'string' && DURATION.test(value)) {
    let seconds = 0;
    for (const [, amount, unit] of value.matchAll(DURATION_PART))
      seconds += Number(amount) * UNIT_SECONDS[unit!]!;
    return seconds;
  }
  throw new VaultError('invalid', `${key} must be a duration: whole seconds or a string such as "1h30m"`);
}
