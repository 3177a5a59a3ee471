/**
 * `/v1/streaming/clusters/:id/users`: a cluster's SCRAM-SHA-512 users. The password is shown once
 * when the user is made; the data plane keeps only its SCRAM credential and a sealed copy, which
 * a caller with write scope may reveal again (audited).
 */
import {
  aclsProblem,
  consumerGroupProblem,
  DuplicateStreamingUserError,
  generatePassword,
  removeUserCredential,
  revealUserPassword,
  storeUserPassword,
  userNameProblem,
  userObject,
  childrenOf,
  type StreamingUserKey,
} from '../../../controllers/streaming/index.js';
import { isStoreError, type ObjectStore } from '../../../control-plane/types.js';
import {
  STREAMING_USER,
  type StreamingAclOperation,
  type StreamingCluster,
  type StreamingUser,
  type StreamingUserAcl,
} from '../../../crds/streaming.js';
import { publishEvent } from '../../../integrations/events/publisher.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { byCreation, PAGE_QUERY_PROPERTIES, pageOf, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  BASE,
  CLUSTER_PARAMS,
  findChild,
  findCluster,
  invalidField,
  nameInUse,
  notReadyMessage,
  READ,
  WRITE,
  type ClusterParams,
  type StreamingRouteServices,
} from './streaming-resources.js';
import { isDeleted, withoutDeleted } from '../../routing/deleted.js';

const OPERATIONS: readonly StreamingAclOperation[] = [
  'read',
  'write',
  'describe',
  'create',
  'delete',
  'alter',
  'idempotent_write',
];

const ACL_SCHEMA = {
  type: 'object',
  required: ['resource_type', 'pattern_type', 'name', 'operations', 'permission'],
  additionalProperties: false,
  properties: {
    resource_type: { type: 'string', enum: ['topic', 'group', 'transactional_id', 'cluster'] },
    pattern_type: { type: 'string', enum: ['literal', 'prefixed'] },
    name: { type: 'string', minLength: 1, maxLength: 249 },
    operations: { type: 'array', minItems: 1, maxItems: 7, items: { type: 'string', enum: OPERATIONS } },
    permission: { type: 'string', enum: ['allow', 'deny'] },
  },
} as const satisfies JsonSchema;

const USER_BODY = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    mechanism: { type: 'string', enum: ['SCRAM-SHA-512'] },
    consumer_group: { type: ['string', 'null'] },
    acls: { type: 'array', items: ACL_SCHEMA },
    status: { type: 'string', enum: ['pending', 'ready', 'deleting', 'error'] },
    message: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    password: { type: 'string', description: 'Only when made, or revealed with reveal_password=true' },
  },
} as const satisfies JsonSchema;

const USER_PARAMS = {
  type: 'object',
  required: ['id', 'name'],
  properties: { ...CLUSTER_PARAMS.properties, name: { type: 'string', minLength: 1, maxLength: 64 } },
} as const satisfies ObjectSchema;

interface UserParams extends ClusterParams {
  name: string;
}

interface AclBody {
  resource_type: StreamingUserAcl['resourceType'];
  pattern_type: StreamingUserAcl['patternType'];
  name: string;
  operations: StreamingAclOperation[];
  permission: StreamingUserAcl['permission'];
}

interface CreateBody {
  name: string;
  password?: string;
  consumer_group?: string;
  acls?: AclBody[];
}

function aclOf(body: AclBody): StreamingUserAcl {
  return {
    resourceType: body.resource_type,
    patternType: body.pattern_type,
    name: body.name,
    operations: body.operations,
    permission: body.permission,
  };
}

export function describeUser(user: StreamingUser) {
  const spec = user.spec!;
  return {
    name: spec.name,
    mechanism: 'SCRAM-SHA-512',
    consumer_group: spec.consumerGroup ?? null,
    acls: spec.acls.map((acl) => ({
      resource_type: acl.resourceType,
      pattern_type: acl.patternType,
      name: acl.name,
      operations: acl.operations,
      permission: acl.permission,
    })),
    status: user.metadata.deletionTimestamp ? 'deleting' : (user.status?.phase ?? 'pending'),
    message: notReadyMessage(user.status),
    created_at: user.metadata.creationTimestamp ?? '',
  };
}

function userKey(cluster: StreamingCluster, username: string): StreamingUserKey {
  return { namespace: cluster.metadata.namespace!, cluster: cluster.metadata.name, username };
}

/** Whether the cluster's user of that name is deleted, its cleanup still under way. */
async function userBeingDeleted(
  store: ObjectStore,
  cluster: StreamingCluster,
  name: string,
): Promise<boolean> {
  const { items } = await store.list<StreamingUser>(STREAMING_USER, {
    namespace: cluster.metadata.namespace,
  });
  return childrenOf(items, cluster.metadata.name).some((user) => user.spec?.name === name && isDeleted(user));
}

async function listStreamingUsers({
  params,
  query,
  principal,
  store,
}: AuthenticatedContext<{ params: ClusterParams; query: PageQuery }>) {
  const cluster = await findCluster(store, principal, params.id);
  const { items } = await store.list<StreamingUser>(STREAMING_USER, {
    namespace: cluster.metadata.namespace,
  });
  const users = withoutDeleted(childrenOf(items, cluster.metadata.name));
  return pageOf(users.sort(byCreation).map(describeUser), query);
}

async function createStreamingUser({
  params,
  body,
  principal,
  store,
  database,
  now,
  platformKey,
  logger,
}: AuthenticatedContext<{ params: ClusterParams; body: CreateBody }, StreamingRouteServices>) {
  const cluster = await findCluster(store, principal, params.id);
  const acls = (body.acls ?? []).map(aclOf);
  const problem =
    userNameProblem(body.name) ?? consumerGroupProblem(body.consumer_group) ?? aclsProblem(acls);
  if (problem) throw invalidField(problem);
  const key = userKey(cluster, body.name);
  const password = body.password ?? generatePassword();
  // The credential first: the controller must find it, not generate another.
  try {
    await storeUserPassword(database, platformKey, key, password, now());
  } catch (error) {
    if (!(error instanceof DuplicateStreamingUserError)) throw error;
    throw nameInUse('user', body.name, await userBeingDeleted(store, cluster, body.name));
  }
  let created: StreamingUser;
  try {
    created = await store.create<StreamingUser>(
      STREAMING_USER,
      userObject(cluster, {
        name: body.name,
        ...(body.consumer_group === undefined ? {} : { consumerGroup: body.consumer_group }),
        acls,
      }),
    );
  } catch (error) {
    await removeUserCredential(database, key);
    if (!isStoreError(error, 'AlreadyExists')) throw error;
    throw nameInUse('user', body.name, await userBeingDeleted(store, cluster, body.name));
  }
  logger.info({ cluster: cluster.metadata.name, user: body.name }, 'streaming user created');
  return { status: 201, data: { ...describeUser(created), password } };
}

async function getStreamingUser(
  ctx: AuthenticatedContext<
    { params: UserParams; query: { reveal_password?: boolean } },
    StreamingRouteServices
  >,
) {
  const { params, query, principal, store, database, platformKey, logger, requestId } = ctx;
  if (
    query.reveal_password &&
    !principal.scopes.some((scope) => scope === '*' || scope === 'streaming:write')
  ) {
    throw forbidden('reveal_password requires the scope streaming:write', {
      details: { missing_scopes: ['streaming:write'] },
    });
  }
  const cluster = await findCluster(store, principal, params.id);
  const user = await findChild<StreamingUser>(store, STREAMING_USER, cluster, params.name);
  if (!user) throw notFound(`user ${params.name} not found in streaming cluster ${cluster.spec!.name}`);
  if (!query.reveal_password) return { data: describeUser(user) };
  const password = await revealUserPassword(database, platformKey, userKey(cluster, params.name));
  if (password === undefined) throw conflict(`user ${params.name} has no password yet; ask again shortly`);
  logger.warn(
    {
      audit: 'streaming_user.password_revealed',
      requestId,
      principal: { kind: principal.kind, id: principal.id },
      organizationId: principal.organizationId,
      cluster: cluster.metadata.name,
      user: params.name,
    },
    'streaming user password revealed',
  );
  await publishEvent(
    { database, store, now: ctx.now },
    {
      organizationId: principal.organizationId!,
      type: 'streaming_user.password_revealed',
      subject: user.metadata.name,
      payload: {
        cluster_id: params.id,
        user: params.name,
        revealed_by: { kind: principal.kind, id: principal.id },
        request_id: requestId,
      },
    },
  );
  return { data: { ...describeUser(user), password } };
}

async function deleteStreamingUser({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: UserParams }>) {
  const cluster = await findCluster(store, principal, params.id);
  const user = await findChild<StreamingUser>(store, STREAMING_USER, cluster, params.name);
  if (!user) throw notFound(`user ${params.name} not found in streaming cluster ${cluster.spec!.name}`);
  await store.delete(STREAMING_USER, user.metadata.namespace, user.metadata.name);
  return {};
}

export const streamingUserRoutes: RouteModule<StreamingRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ params: ClusterParams; query: PageQuery }>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/users',
      scopes: READ,
      summary: "A cluster's users",
      request: {
        params: CLUSTER_PARAMS,
        query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } },
      },
      responses: {
        200: {
          description: 'Users, oldest first',
          paginated: true,
          schema: { type: 'array', items: USER_BODY },
        },
        404: { description: 'No such cluster' },
      },
      handler: listStreamingUsers,
    }),
    defineRoute<{ params: ClusterParams; body: CreateBody }, StreamingRouteServices>({
      ...BASE,
      method: 'post',
      path: '/v1/streaming/clusters/:id/users',
      scopes: WRITE,
      summary: 'Create a user',
      description:
        'The answer carries the password, once (generated when none is given). consumer_group is a group id, ' +
        'or a prefix ending in `*`, the user may consume as.',
      request: {
        params: CLUSTER_PARAMS,
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            password: { type: 'string', minLength: 12, maxLength: 256 },
            consumer_group: { type: 'string', minLength: 1, maxLength: 250 },
            acls: { type: 'array', maxItems: 100, items: ACL_SCHEMA },
          },
        },
      },
      responses: {
        201: { description: 'The new user, with its password', schema: USER_BODY },
        404: { description: 'No such cluster' },
        409: { description: 'A user of that name exists' },
        422: { description: 'An invalid user name, consumer group or acl' },
      },
      handler: createStreamingUser,
    }),
    defineRoute<{ params: UserParams; query: { reveal_password?: boolean } }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/users/:name',
      scopes: READ,
      summary: 'A user',
      description:
        'reveal_password=true adds the password; it needs the streaming:write scope and is audited (a log line ' +
        'naming who asked, and the event streaming_user.password_revealed).',
      request: {
        params: USER_PARAMS,
        query: { type: 'object', properties: { reveal_password: { type: 'boolean', default: false } } },
      },
      responses: {
        200: { description: 'The user', schema: USER_BODY },
        403: { description: 'reveal_password without the streaming:write scope' },
        404: { description: 'No such cluster or user' },
      },
      handler: getStreamingUser,
    }),
    defineRoute<{ params: UserParams }>({
      ...BASE,
      method: 'delete',
      path: '/v1/streaming/clusters/:id/users/:name',
      scopes: WRITE,
      summary: 'Delete a user',
      description: 'The brokers stop accepting its credential; its sessions are refused from then on.',
      request: { params: USER_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such cluster or user' } },
      handler: deleteStreamingUser,
    }),
  ],
};
