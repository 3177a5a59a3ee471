/**
 * Requests answered without storing anything: TokenRequest (`kubectl create token`), TokenReview,
 * SelfSubjectAccessReview (`kubectl auth can-i`) and SubjectAccessReview. Each answers the object
 * it was sent with `status` filled, as a kube-apiserver does.
 */
import { isJsonObject, type JsonObject } from '../json-value.js';
import { timestamp } from '../object-meta.js';
import type { ResourceAttributes } from '../rbac-rules.js';
import { authorize, type ApiContext, type ResourceCall } from './api-context.js';
import { isGranted, type KubeIdentity } from './authentication.js';
import { isAllowed, rbacAllows, rulesFor, type ScopedRule } from './authorization.js';
import { badRequest, invalid, notFoundObject } from './kube-status.js';
import { contentTypeOf } from './media-types.js';
import { decodeBody } from './request-body.js';
import {
  DEFAULT_AUDIENCE,
  DEFAULT_EXPIRATION_SECONDS,
  MIN_EXPIRATION_SECONDS,
  mintServiceAccountToken,
  readServiceAccount,
} from './service-account-tokens.js';

function bodyOf(call: ResourceCall): JsonObject {
  const body = decodeBody(call.req, contentTypeOf(call.req.headers['content-type']));
  if (!isJsonObject(body)) throw badRequest('the body must be an object');
  return body;
}

function specOf(body: JsonObject): JsonObject {
  return isJsonObject(body.spec) ? body.spec : {};
}

/** POST serviceaccounts/<name>/token: a token for the account, bound to its uid. */
export async function createToken(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'create');
  const namespace = call.namespace ?? '';
  const name = call.name ?? '';
  const spec = specOf(bodyOf(call));
  const expirationSeconds =
    typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < MIN_EXPIRATION_SECONDS) {
    throw invalid({ kind: 'TokenRequest', group: 'authentication.k8s.io' }, name, [
      {
        field: 'spec.expirationSeconds',
        reason: 'FieldValueInvalid',
        message: `spec.expirationSeconds: Invalid value: ${expirationSeconds}: may not specify a duration less than ${MIN_EXPIRATION_SECONDS / 60} minutes`,
      },
    ]);
  }
  const audiences = Array.isArray(spec.audiences)
    ? spec.audiences.filter((entry): entry is string => typeof entry === 'string')
    : [];
  const account = await readServiceAccount(context.store, namespace, name);
  if (account === undefined) throw notFoundObject('', 'serviceaccounts', name);
  const now = context.now();
  const minted = await mintServiceAccountToken(
    context.tokenKey,
    { namespace, name, uid: account.metadata.uid ?? '' },
    { audiences: audiences.length > 0 ? audiences : [DEFAULT_AUDIENCE], expirationSeconds, now },
  );
  call.res.status(201).json({
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: timestamp(now) },
    spec: {
      audiences: audiences.length > 0 ? audiences : [DEFAULT_AUDIENCE],
      expirationSeconds,
      boundObjectRef: null,
    },
    status: { token: minted.token, expirationTimestamp: timestamp(minted.expirationTimestamp) },
  });
}

function attributesOf(spec: JsonObject): ResourceAttributes | { verb: string; path: string } | undefined {
  const resource = spec.resourceAttributes;
  if (isJsonObject(resource)) {
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
    return {
      verb: text(resource.verb) ?? '',
      group: text(resource.group) ?? '',
      resource: text(resource.resource) ?? '',
      subresource: text(resource.subresource),
      name: text(resource.name),
      namespace: text(resource.namespace),
    };
  }
  const path = spec.nonResourceAttributes;
  if (isJsonObject(path) && typeof path.path === 'string' && typeof path.verb === 'string')
    return { verb: path.verb, path: path.path };
  return undefined;
}

function decide(
  context: ApiContext,
  identity: KubeIdentity,
  rules: readonly ScopedRule[],
  request: ResourceAttributes | { verb: string; path: string },
): { allowed: boolean; reason?: string } {
  if ('path' in request) {
    return { allowed: isGranted(identity) ? request.verb === 'get' : rbacAllows(rules, request) };
  }
  const served = context.catalog
    .all()
    .find(
      (resource) =>
        resource.descriptor.group === request.group && resource.descriptor.plural === request.resource,
    );
  const allowed = isAllowed(identity, rules, request, served?.descriptor.namespaced ?? true);
  if (allowed && !isGranted(identity))
    return { allowed, reason: 'RBAC: allowed by a role bound to the subject' };
  return { allowed };
}

function userInfoOf(identity: KubeIdentity): JsonObject {
  return {
    username: identity.user,
    ...('uid' in identity && identity.uid ? { uid: identity.uid } : {}),
    groups: isGranted(identity) ? ['system:authenticated'] : identity.groups,
  };
}

/** POST of a TokenReview, SelfSubjectReview, SelfSubjectAccessReview or SubjectAccessReview. */
export async function createReview(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'create');
  const body = bodyOf(call);
  const spec = specOf(body);
  const { kind } = call.resource.descriptor;
  let status: JsonObject;
  if (kind === 'SelfSubjectReview') {
    status = { userInfo: userInfoOf(call.identity) };
  } else if (kind === 'TokenReview') {
    if (typeof spec.token !== 'string' || spec.token === '') {
      throw invalid(call.resource.descriptor, '', [
        { field: 'spec.token', reason: 'FieldValueRequired', message: 'Required value' },
      ]);
    }
    const identity = await context.authenticate({ headers: { authorization: `Bearer ${spec.token}` } });
    status =
      identity === undefined
        ? { authenticated: false, error: 'the token is not valid' }
        : { authenticated: true, user: userInfoOf(identity) };
  } else {
    const request = attributesOf(spec);
    if (request === undefined) {
      throw invalid(call.resource.descriptor, '', [
        {
          field: 'spec.resourceAttributes',
          reason: 'FieldValueRequired',
          message: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
        },
      ]);
    }
    let identity: KubeIdentity = call.identity;
    let rules = call.rules;
    if (kind === 'SubjectAccessReview') {
      const user = typeof spec.user === 'string' ? spec.user : '';
      const groups = Array.isArray(spec.groups)
        ? spec.groups.filter((entry): entry is string => typeof entry === 'string')
        : [];
      identity = { user, groups };
      rules = await rulesFor(context.store, identity);
    }
    status = decide(context, identity, rules, request);
  }
  call.res.status(201).json({
    kind,
    apiVersion: call.resource.apiVersion,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
}
