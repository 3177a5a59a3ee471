/**
 * `/v1/stacks`: declarative templates and their plan. Applying and destroying are executions
 * (executions.ts); what a stack applied is read from the data plane (artifacts.ts).
 */
import { objectNameOf, restIdOf } from '../../../crds/ids.js';
import { DESTROY_RESOURCES_ANNOTATION, UPDATED_AT_ANNOTATION } from '../../../crds/annotations.js';
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import { listEntries, planStack, type StackTemplate } from '../../../controllers/stacks/index.js';
import { STACK, type Stack } from '../../../crds/stacks.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  createResource,
  deleteResource,
  listResources,
  readResource,
} from '../../routing/resource-handlers.js';
import {
  BASE,
  describeStack,
  describeStackSummary,
  findStack,
  READ,
  STACK_DETAIL,
  STACK_PARAMS,
  STACK_SUMMARY,
  STACKS,
  STATUSES,
  templateError,
  WRITE,
  type StackParams,
  type StackRouteServices,
} from './stack-views.js';

const TEMPLATE = {
  type: 'object',
  description:
    'version, name, resources, secrets, bootstrap, services and outputs; references are written `${section.name.attribute}`',
} as const satisfies JsonSchema;

const TENANT = {
  type: 'string',
  minLength: 1,
  maxLength: 63,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
} as const satisfies JsonSchema;

const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$',
} as const;

const PLAN_BODY = {
  type: 'object',
  properties: {
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['create', 'update', 'replace', 'delete'] },
          resource: { type: 'string', examples: ['services.api'] },
          details: { type: 'object' },
        },
      },
    },
    summary: {
      type: 'object',
      properties: {
        create: { type: 'integer' },
        update: { type: 'integer' },
        replace: { type: 'integer' },
        delete: { type: 'integer' },
        unchanged: { type: 'integer' },
      },
    },
    plan_digest: { type: 'string' },
    version: { type: 'integer' },
    applied_version: { type: ['integer', 'null'] },
  },
} as const satisfies JsonSchema;

interface ListQuery extends PageQuery {
  status?: (typeof STATUSES)[number];
  tenant?: string;
}

interface CreateBody {
  name: string;
  tenant: string;
  template: Record<string, unknown>;
}

const STACK_FAMILY = { lookup: STACKS, view: describeStackSummary, idPrefix: 'stk' } as const;

async function listStacks(ctx: AuthenticatedContext<{ query: ListQuery }>) {
  const { query } = ctx;
  return listResources(
    ctx,
    STACK_FAMILY,
    (stack) =>
      (query.status === undefined || stack.status === query.status) &&
      (query.tenant === undefined || stack.tenant === query.tenant),
  );
}

/** A create answers the stack's id, name, version and that nothing is applied yet. */
function describeNewStack(stack: Stack) {
  return {
    id: restIdOf(stack.metadata.name),
    name: stack.spec!.name,
    status: 'pending',
    version: stack.spec!.version,
  };
}

async function createStack({
  body,
  principal,
  store,
  now,
  workloadsConfig,
}: AuthenticatedContext<{ body: CreateBody }, StackRouteServices>) {
  const problem = templateError(body.template, workloadsConfig);
  if (problem) throw problem;
  const family = { ...STACK_FAMILY, view: describeNewStack };
  return createResource({ store, principal }, family, body.name, ({ id, namespace }) =>
    store.create<Stack>(STACK, {
      apiVersion: API_VERSION,
      kind: STACK.kind,
      metadata: {
        name: objectNameOf(id),
        namespace,
        annotations: { [UPDATED_AT_ANNOTATION]: now().toISOString() },
      },
      spec: { name: body.name, tenant: body.tenant, template: body.template, version: 1 },
    }),
  );
}

async function getStack(ctx: AuthenticatedContext<{ params: StackParams }>) {
  const { database } = ctx;
  return readResource(ctx, {
    lookup: STACKS,
    view: async (stack: Stack) =>
      describeStack(
        stack,
        await listEntries(database, { namespace: stack.metadata.namespace!, stack: stack.metadata.name }),
      ),
  });
}

async function replaceStack({
  params,
  body,
  principal,
  store,
  now,
  workloadsConfig,
}: AuthenticatedContext<
  { params: StackParams; body: { template: Record<string, unknown> } },
  StackRouteServices
>) {
  const problem = templateError(body.template, workloadsConfig);
  if (problem) throw problem;
  const stack = await findStack(store, principal, params.id);
  const updated = await store.update<Stack>(STACK, {
    ...stack,
    metadata: {
      ...stack.metadata,
      annotations: { ...stack.metadata.annotations, [UPDATED_AT_ANNOTATION]: now().toISOString() },
    },
    spec: { ...stack.spec!, template: body.template, version: stack.spec!.version + 1 },
  });
  const running = updated.status?.status === 'deploying';
  return {
    data: {
      id: params.id,
      status: running ? 'deploying' : 'pending',
      version: updated.spec!.version,
      pending_changes: true,
    },
  };
}

async function deleteStack(
  ctx: AuthenticatedContext<{ params: StackParams; query: { destroy_resources: boolean } }>,
) {
  const { store, query } = ctx;
  const wanted = String(query.destroy_resources);
  return deleteResource(ctx, STACK_FAMILY, async (stack) => {
    if (stack.metadata.annotations?.[DESTROY_RESOURCES_ANNOTATION] === wanted) return;
    await store.update<Stack>(STACK, {
      ...stack,
      metadata: {
        ...stack.metadata,
        annotations: { ...stack.metadata.annotations, [DESTROY_RESOURCES_ANNOTATION]: wanted },
      },
    });
  });
}

async function previewStackPlan({
  params,
  principal,
  store,
  database,
  workloadsConfig,
}: AuthenticatedContext<{ params: StackParams }, StackRouteServices>) {
  const stack = await findStack(store, principal, params.id);
  const problem = templateError(stack.spec!.template, workloadsConfig);
  if (problem) throw problem;
  const entries = await listEntries(database, {
    namespace: stack.metadata.namespace!,
    stack: stack.metadata.name,
  });
  const plan = planStack(stack.spec!.template as StackTemplate, entries);
  return {
    data: {
      ...plan,
      version: stack.spec!.version,
      applied_version: stack.status?.appliedVersion ?? null,
    },
  };
}

export const stackRoutes: RouteModule<StackRouteServices> = {
  area: 'stacks',
  routes: [
    defineRoute<{ query: ListQuery }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks',
      scopes: READ,
      summary: "The organization's stacks",
      request: {
        query: {
          type: 'object',
          properties: {
            ...PAGE_QUERY_PROPERTIES,
            status: { type: 'string', enum: STATUSES },
            tenant: TENANT,
          },
        },
      },
      responses: {
        200: {
          description: 'Stacks, oldest first',
          paginated: true,
          schema: { type: 'array', items: STACK_SUMMARY },
        },
      },
      handler: listStacks,
    }),
    defineRoute<{ body: CreateBody }, StackRouteServices>({
      ...BASE,
      method: 'post',
      path: '/v1/stacks',
      scopes: WRITE,
      summary: 'Create a stack',
      description: 'Nothing is applied until POST /v1/stacks/:id/apply. The template is checked at once.',
      request: {
        body: {
          type: 'object',
          required: ['name', 'tenant', 'template'],
          additionalProperties: false,
          properties: { name: NAME, tenant: TENANT, template: TEMPLATE },
        },
      },
      responses: {
        201: {
          description: 'The new stack, pending',
          schema: {
            type: 'object',
            properties: {
              id: STACK_SUMMARY.properties.id,
              name: { type: 'string' },
              status: STACK_SUMMARY.properties.status,
              version: { type: 'integer' },
            },
          },
        },
        400: {
          description:
            'The body or the template is malformed; details.problems lists each problem with its path',
        },
        409: { description: 'A stack of that name exists' },
        422: {
          description:
            'The template asks for an engine, version or size the platform does not offer, refers to something that does not exist, or has a dependency cycle',
        },
      },
      handler: createStack,
    }),
    defineRoute<{ params: StackParams }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id',
      scopes: READ,
      summary: 'A stack, with its template, resources and outputs',
      request: { params: STACK_PARAMS },
      responses: {
        200: { description: 'The stack; sensitive outputs are masked', schema: STACK_DETAIL },
        404: { description: 'No such stack' },
      },
      handler: getStack,
    }),
    defineRoute<{ params: StackParams; body: { template: Record<string, unknown> } }, StackRouteServices>({
      ...BASE,
      method: 'put',
      path: '/v1/stacks/:id',
      scopes: WRITE,
      summary: "Replace a stack's template",
      description:
        'The version goes up by one and nothing is applied: GET plan shows what an apply would change.',
      request: {
        params: STACK_PARAMS,
        body: {
          type: 'object',
          required: ['template'],
          additionalProperties: false,
          properties: { template: TEMPLATE },
        },
      },
      responses: {
        200: {
          description: 'The stack with its new version',
          schema: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              status: STACK_SUMMARY.properties.status,
              version: { type: 'integer' },
              pending_changes: { type: 'boolean' },
            },
          },
        },
        400: { description: 'The template is malformed' },
        404: { description: 'No such stack' },
        409: { description: 'The stack is being deleted, or changed meanwhile' },
        422: {
          description:
            'The template asks for an engine, version or size the platform does not offer, refers to something that does not exist, or has a dependency cycle',
        },
      },
      handler: replaceStack,
    }),
    defineRoute<{ params: StackParams; query: { destroy_resources: boolean } }>({
      ...BASE,
      method: 'delete',
      path: '/v1/stacks/:id',
      scopes: WRITE,
      summary: 'Delete a stack',
      description:
        'With destroy_resources=true the stack destroys what it applied (services, jobs, secrets, then ' +
        'infrastructure) and goes once that is done; otherwise it goes at once and its databases and vault ' +
        'secrets are kept.',
      request: {
        params: STACK_PARAMS,
        query: {
          type: 'object',
          properties: { destroy_resources: { type: 'boolean', default: false } },
        },
      },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such stack' } },
      handler: deleteStack,
    }),
    defineRoute<{ params: StackParams }, StackRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/plan',
      scopes: READ,
      summary: 'What an apply would change',
      description:
        'Compares the template with what the last executions applied. Values not known before apply read ' +
        '"(known after apply)"; values that hold a secret read "(sensitive)". Give plan_digest to apply to ' +
        'apply exactly this plan.',
      request: { params: STACK_PARAMS },
      responses: {
        200: { description: 'The plan', schema: PLAN_BODY },
        404: { description: 'No such stack' },
        422: {
          description:
            'The template stored with kubectl is invalid, or asks for an engine, version or size the platform does not offer',
        },
      },
      handler: previewStackPlan,
    }),
  ],
};
