/**
 * `/v1/stacks/:id/apply`, `/destroy` and `/executions/:execution_id`. An apply or destroy is a
 * StackExecution the controller runs phase by phase; the answer comes at once.
 */
import { newRestId, objectNameOf, restIdOf } from '../../../crds/ids.js';
import { EXECUTION_REQUEST_ANNOTATION, REQUESTED_AT_ANNOTATION } from '../../../crds/annotations.js';
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import { isStoreError } from '../../../control-plane/types.js';
import {
  executionOwner,
  listEntries,
  phaseOrder,
  planStack,
  type DatabaseLimits,
  type StackTemplate,
} from '../../../controllers/stacks/index.js';
import {
  STACK,
  STACK_EXECUTION,
  type Stack,
  type StackExecution,
  type StackOperation,
} from '../../../crds/stacks.js';
import { conflict, notFound } from '../../errors.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import {
  defineRoute,
  type RouteDefinition,
  type RouteModule,
  type AuthenticatedContext,
  type RouteResult,
} from '../../routing/route.js';
import {
  BASE,
  describeExecution,
  EXECUTION_BODY,
  executionsOf,
  findStack,
  READ,
  runningExecution,
  STACK_PARAMS,
  templateError,
  WRITE,
  type StackParams,
  type StackRouteServices,
} from './stack-views.js';

interface ExecutionRequest {
  dry_run?: boolean;
  force?: boolean;
  plan_digest?: string;
}

const EXECUTION_REQUEST = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    dry_run: { type: 'boolean', default: false, description: 'Check and plan only; nothing changes' },
    force: {
      type: 'boolean',
      default: false,
      description: 'Run even though another execution runs (it queues behind it) or the plan is stale',
    },
    plan_digest: {
      type: 'string',
      maxLength: 100,
      description: 'The plan_digest of the plan to apply: 409 when the plan changed since',
    },
  },
} as const;

/**
 * Starts an execution. The stack's resourceVersion guards the check that none runs: of two
 * requests at once, the second's write of the stack fails and it answers 409.
 */
async function startExecution(
  services: { store: ObjectStore; database: DataPlane; now: Date; limits: DatabaseLimits },
  stack: Stack,
  operation: StackOperation,
  request: ExecutionRequest,
) {
  const { store, database, now } = services;
  const dryRun = request.dry_run ?? false;
  const force = request.force ?? false;
  let plan;
  if (operation === 'apply') {
    const problem = templateError(stack.spec!.template, services.limits);
    if (problem) throw problem;
    const entries = await listEntries(database, {
      namespace: stack.metadata.namespace!,
      stack: stack.metadata.name,
    });
    plan = planStack(stack.spec!.template as StackTemplate, entries);
    if (request.plan_digest !== undefined && request.plan_digest !== plan.plan_digest && !force) {
      throw conflict('plan is stale: the template or what is applied changed since that plan; plan again', {
        details: { plan_digest: plan.plan_digest },
      });
    }
  }
  const running = runningExecution(await executionsOf(store, stack));
  if (running && !force && !dryRun) {
    throw conflict(`an execution of this stack is running: ${restIdOf(running.metadata.name)}`, {
      details: { execution_id: restIdOf(running.metadata.name) },
    });
  }
  const id = newRestId('exec');
  if (!dryRun) {
    try {
      await store.update<Stack>(STACK, {
        ...stack,
        metadata: {
          ...stack.metadata,
          annotations: { ...stack.metadata.annotations, [EXECUTION_REQUEST_ANNOTATION]: id },
        },
      });
    } catch (error) {
      if (isStoreError(error, 'Conflict'))
        throw conflict('another execution of this stack was just asked for');
      throw error;
    }
  }
  const execution = await store.create<StackExecution>(STACK_EXECUTION, {
    apiVersion: API_VERSION,
    kind: STACK_EXECUTION.kind,
    metadata: {
      name: objectNameOf(id),
      namespace: stack.metadata.namespace,
      annotations: { [REQUESTED_AT_ANNOTATION]: now.toISOString() },
      ownerReferences: [executionOwner(stack)],
    },
    spec: {
      stack: stack.metadata.name,
      operation,
      basedOnVersion: stack.spec!.version,
      ...(request.plan_digest === undefined ? {} : { planDigest: request.plan_digest }),
      ...(dryRun ? { dryRun } : {}),
      ...(force ? { force } : {}),
    },
  });
  const view = describeExecution(execution, phaseOrder(operation)[0]!);
  return {
    execution_id: view.execution_id,
    status: view.status,
    phase: view.phase,
    started_at: view.started_at,
    dry_run: dryRun,
    ...(plan ? { plan } : {}),
  };
}

const STARTED = {
  type: 'object',
  properties: {
    execution_id: { type: 'string' },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    phase: { type: 'string' },
    started_at: { type: 'string', format: 'date-time' },
    dry_run: { type: 'boolean' },
    plan: { type: 'object', description: 'Apply only: the plan the execution carries out' },
  },
} as const;

type ExecutionContext = AuthenticatedContext<
  { params: StackParams; body: ExecutionRequest | null | undefined },
  StackRouteServices
>;

async function runExecution(
  operation: StackOperation,
  { params, body, principal, store, database, now, workloadsConfig }: ExecutionContext,
) {
  const stack = await findStack(store, principal, params.id);
  return {
    data: await startExecution(
      { store, database, now: now(), limits: workloadsConfig },
      stack,
      operation,
      body ?? {},
    ),
  };
}

async function applyStack(ctx: ExecutionContext) {
  return runExecution('apply', ctx);
}

async function destroyStack(ctx: ExecutionContext) {
  return runExecution('destroy', ctx);
}

function executionRoute(
  operation: StackOperation,
  handler: (ctx: ExecutionContext) => Promise<RouteResult>,
): RouteDefinition<StackRouteServices> {
  return defineRoute<{ params: StackParams; body: ExecutionRequest | null | undefined }, StackRouteServices>({
    ...BASE,
    method: 'post',
    path: `/v1/stacks/:id/${operation}`,
    scopes: WRITE,
    summary: operation === 'apply' ? 'Apply the template' : 'Destroy what the stack applied',
    description:
      operation === 'apply'
        ? 'Runs the phases infrastructure, secrets, bootstrap and services in order; follow it with GET ' +
          '/v1/stacks/:id/executions/:execution_id.'
        : 'Removes what the stack applied, in reverse: services, bootstrap, secrets, infrastructure. The stack stays.',
    request: { params: STACK_PARAMS, body: EXECUTION_REQUEST },
    responses: {
      200: { description: 'The execution, running', schema: STARTED },
      404: { description: 'No such stack' },
      409: { description: 'An execution runs already, or the plan is stale (force overrides both)' },
      422: { description: 'The template is invalid' },
    },
    handler,
  });
}

async function getStackExecution({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: StackParams & { execution_id: string } }>) {
  const stack = await findStack(store, principal, params.id);
  try {
    const execution = await store.get<StackExecution>(
      STACK_EXECUTION,
      stack.metadata.namespace,
      objectNameOf(params.execution_id),
    );
    if (execution.spec?.stack === stack.metadata.name) {
      return { data: describeExecution(execution, phaseOrder(execution.spec.operation)[0]!) };
    }
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
  }
  throw notFound(`execution ${params.execution_id} of stack ${params.id} not found`);
}

export const stackExecutionRoutes: RouteModule<StackRouteServices> = {
  area: 'stacks',
  routes: [
    executionRoute('apply', applyStack),
    executionRoute('destroy', destroyStack),
    defineRoute<{ params: StackParams & { execution_id: string } }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/executions/:execution_id',
      scopes: READ,
      summary: 'An execution: its phases and steps',
      request: {
        params: {
          type: 'object',
          required: ['id', 'execution_id'],
          properties: { ...STACK_PARAMS.properties, execution_id: STACK_PARAMS.properties.id },
        },
      },
      responses: {
        200: { description: 'The execution', schema: EXECUTION_BODY },
        404: { description: 'No such stack or execution' },
      },
      handler: getStackExecution,
    }),
  ],
};
