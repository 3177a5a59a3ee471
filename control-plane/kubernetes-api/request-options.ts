import type { Request } from 'express';
import { isJsonObject } from '../json-value.js';
import type { DeleteOptions } from '../types.js';
import { parseLabelSelector } from '../label-selector.js';
import { badRequest } from './kube-status.js';

/** The query parameters of the Kubernetes API, checked as a kube-apiserver checks them. */

export function queryValue(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

function queryValues(req: Request, name: string): string[] {
  const value = (req.query as Record<string, unknown>)[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((entry): entry is string => typeof entry === 'string');
}

function booleanValue(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw badRequest(`${name}: Invalid value: "${value}": must be true or false`);
}

export function queryBoolean(req: Request, name: string): boolean {
  return booleanValue(queryValue(req, name), name);
}

function nonNegativeInteger(req: Request, name: string): number | undefined {
  const value = queryValue(req, name);
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value))
    throw badRequest(`${name}: Invalid value: "${value}": must be a non-negative integer`);
  return Number(value);
}

export function limitOf(req: Request): number {
  return nonNegativeInteger(req, 'limit') ?? 0;
}

export function timeoutSecondsOf(req: Request): number | undefined {
  return nonNegativeInteger(req, 'timeoutSeconds');
}

/** The label selector, checked now so a malformed one is a 400 before any watch starts. */
export function labelSelectorOf(req: Request): string | undefined {
  const selector = queryValue(req, 'labelSelector');
  parseLabelSelector(selector);
  return selector === '' ? undefined : selector;
}

/** `resourceVersion` of a watch: empty and `0` both start with the current objects. */
export function watchResourceVersionOf(req: Request): string {
  const value = queryValue(req, 'resourceVersion') ?? '';
  if (value === '' || value === '0') return '0';
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: "${value}"`);
  return value;
}

export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

/**
 * `resourceVersionMatch` of a list, with the `resourceVersion` it qualifies; undefined when the
 * list does not ask for one. Without a resourceVersion it is a 400, as on a kube-apiserver.
 */
export function resourceVersionMatchOf(
  req: Request,
): { match: ResourceVersionMatch; resourceVersion: string } | undefined {
  const match = queryValue(req, 'resourceVersionMatch') ?? '';
  if (match === '') return undefined;
  if (match !== 'Exact' && match !== 'NotOlderThan') {
    throw badRequest(
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
    );
  }
  const resourceVersion = queryValue(req, 'resourceVersion') ?? '';
  if (resourceVersion === '')
    throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (!/^\d+$/.test(resourceVersion)) throw badRequest(`invalid resource version: "${resourceVersion}"`);
  if (match === 'Exact' && resourceVersion === '0')
    throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
  return { match, resourceVersion };
}

/**
 * Whether a watch asks for its initial state as events (watch-list). The apiserver takes
 * `sendInitialEvents=true` only with `resourceVersionMatch=NotOlderThan` and bookmarks allowed,
 * since the end of the initial events is a bookmark.
 */
export function sendsInitialEvents(req: Request): boolean {
  if (!queryBoolean(req, 'sendInitialEvents')) return false;
  if (queryValue(req, 'resourceVersionMatch') !== 'NotOlderThan')
    throw badRequest(
      'sendInitialEvents: resourceVersionMatch must be "NotOlderThan" when sendInitialEvents is true',
    );
  if (!queryBoolean(req, 'allowWatchBookmarks'))
    throw badRequest('sendInitialEvents: allowWatchBookmarks must be true when sendInitialEvents is true');
  return true;
}

export function isDryRun(req: Request): boolean {
  const values = queryValues(req, 'dryRun');
  for (const value of values) {
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  return values.length > 0;
}

export type FieldValidationMode = 'Strict' | 'Warn' | 'Ignore';

/** How unknown fields are treated; `Warn` (write, and say so in a Warning header) when not given. */
export function fieldValidationOf(req: Request): FieldValidationMode {
  const value = queryValue(req, 'fieldValidation');
  if (value === undefined || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(
    `fieldValidation: Unsupported value: "${value}": supported values: "Ignore", "Strict", "Warn"`,
  );
}

/** The field manager of a write: the parameter, or the client's name from its User-Agent. */
export function fieldManagerOf(req: Request): string | undefined {
  const value = queryValue(req, 'fieldManager');
  if (value !== undefined && value !== '') {
    if (value.length > 128 || /[^\x20-\x7e]/.test(value)) {
      throw badRequest(`fieldManager: Invalid value: "${value}": must be at most 128 printable characters`);
    }
    return value;
  }
  return undefined;
}

export function defaultFieldManager(req: Request): string {
  const agent = req.headers['user-agent'];
  const prefix = agent?.split('/')[0]?.trim();
  return prefix ? prefix.slice(0, 128) : 'unknown';
}

const POLICIES = new Set(['Background', 'Foreground', 'Orphan']);

/**
 * DeleteOptions from the body (kubectl sends them there) merged with the query: propagation
 * policy (or the older `orphanDependents`), preconditions and dry run.
 */
export function deleteOptionsOf(req: Request, body: unknown): DeleteOptions {
  const fromBody = isJsonObject(body) ? body : {};
  const options: DeleteOptions = {};
  const policy = queryValue(req, 'propagationPolicy') ?? fromBody.propagationPolicy;
  if (policy !== undefined && policy !== null) {
    if (typeof policy !== 'string' || !POLICIES.has(policy)) {
      throw badRequest(
        `propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Background", "Foreground", "Orphan"`,
      );
    }
    options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  } else {
    const orphan = queryValue(req, 'orphanDependents') ?? fromBody.orphanDependents;
    if (orphan !== undefined && orphan !== null) {
      options.propagationPolicy = booleanValue(String(orphan), 'orphanDependents') ? 'Orphan' : 'Background';
    }
  }
  const preconditions = fromBody.preconditions;
  if (isJsonObject(preconditions)) {
    options.preconditions = {};
    if (typeof preconditions.uid === 'string') options.preconditions.uid = preconditions.uid;
    if (typeof preconditions.resourceVersion === 'string') {
      options.preconditions.resourceVersion = preconditions.resourceVersion;
    }
  }
  const dryRun = fromBody.dryRun;
  if (Array.isArray(dryRun) && dryRun.length > 0) {
    if (dryRun.some((value) => value !== 'All')) {
      throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(dryRun)}: supported values: "All"`);
    }
    options.dryRun = true;
  }
  if (isDryRun(req)) options.dryRun = true;
  return options;
}
