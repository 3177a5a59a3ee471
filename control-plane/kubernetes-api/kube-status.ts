import { StoreError, type StoreErrorCause } from '../types.js';

/**
 * `Status`, the body every Kubernetes API error has, and the error type the handlers of this API
 * throw. Reasons and messages are worded as a kube-apiserver words them, because clients
 * (kubectl, client-go, client-node) branch on the reason and show the message verbatim.
 */

export type StatusReason =
  | StoreError['reason']
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge';

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The resource (plural) for most reasons, the kind for `Invalid`, as the apiserver fills it. */
  kind?: string;
  uid?: string;
  causes?: StoreErrorCause[];
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error this API answers as a `Status` with `code` and `reason`. */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details: StatusDetails = {},
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

function failure(code: number, reason: StatusReason, message: string, details: StatusDetails): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  if (Object.keys(details).length > 0) status.details = details;
  return status;
}

/**
 * The `Status` answering `error`. Store errors keep their reason, code and causes, and gain the
 * API group of the resource asked for; anything unexpected is a 500 that reveals nothing.
 */
export function statusOf(error: unknown, group?: string): KubeStatus {
  if (error instanceof KubeApiError) return failure(error.code, error.reason, error.message, error.details);
  if (error instanceof StoreError) {
    const details: StatusDetails = { ...error.details };
    if (group !== undefined && (details.name !== undefined || details.kind !== undefined)) {
      details.group = group;
    }
    return failure(error.code, error.reason, error.message, details);
  }
  return failure(500, 'InternalError', 'Internal error occurred: the request could not be completed', {});
}

/** What a delete answers when the object is gone at once: `Status` Success naming it. */
export function deletedStatus(details: StatusDetails): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

export function badRequest(message: string): KubeApiError {
  return new KubeApiError(400, 'BadRequest', message);
}

export function unauthorized(): KubeApiError {
  return new KubeApiError(401, 'Unauthorized', 'Unauthorized');
}

/** What a request path names, for the messages that quote it. */
export interface RequestTarget {
  /** `get`, `list`, `create`, … as RBAC names verbs. */
  verb: string;
  group: string;
  plural: string;
  name?: string;
  namespace?: string;
  subresource?: string;
}

/** 403 worded as RBAC words it: `widgets.cloudplane.dev "a" is forbidden: User "u" cannot get …`. */
export function forbidden(user: string, target: RequestTarget): KubeApiError {
  const qualified = target.group ? `${target.plural}.${target.group}` : target.plural;
  const subject = target.name === undefined ? qualified : `${qualified} "${target.name}"`;
  const resource = target.subresource ? `${target.plural}/${target.subresource}` : target.plural;
  const scope =
    target.namespace === undefined ? 'at the cluster scope' : `in the namespace "${target.namespace}"`;
  const details: StatusDetails = { group: target.group, kind: target.plural };
  if (target.name !== undefined) details.name = target.name;
  return new KubeApiError(
    403,
    'Forbidden',
    `${subject} is forbidden: User "${user}" cannot ${target.verb} resource "${resource}" in API group "${target.group}" ${scope}`,
    details,
  );
}

/** 404 for one object: `serviceaccounts "builder" not found`. */
export function notFoundObject(group: string, plural: string, name: string): KubeApiError {
  const qualified = group ? `${plural}.${group}` : plural;
  return new KubeApiError(404, 'NotFound', `${qualified} "${name}" not found`, { name, group, kind: plural });
}

export function notFoundPath(): KubeApiError {
  return new KubeApiError(404, 'NotFound', 'the server could not find the requested resource');
}

export function methodNotAllowed(): KubeApiError {
  return new KubeApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

export function notAcceptable(accepted: readonly string[]): KubeApiError {
  return new KubeApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: ${accepted.join(', ')}`,
  );
}

export function unsupportedMediaType(contentType: string, accepted: readonly string[]): KubeApiError {
  return new KubeApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format (${contentType || 'none'}) - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function entityTooLarge(limitBytes: number): KubeApiError {
  return new KubeApiError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: limit is ${limitBytes} bytes`,
  );
}

/** 422 with field causes, e.g. `Widget.cloudplane.dev "a" is invalid: metadata.resourceVersion: …`. */
export function invalid(
  kind: { kind: string; group: string },
  name: string,
  causes: StoreErrorCause[],
): KubeApiError {
  const qualified = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const listed = causes.map((cause) => cause.message);
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`;
  return new KubeApiError(422, 'Invalid', `${qualified} "${name}" is invalid: ${summary}`, {
    name,
    group: kind.group,
    kind: kind.kind,
    causes,
  });
}
