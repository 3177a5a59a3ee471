/** What the stack routes share: lookups in the caller's organization, the REST shapes, errors. */
import { objectNameOf, restIdOf } from '../../../crds/ids.js';
import { UPDATED_AT_ANNOTATION } from '../../../crds/annotations.js';
import type { Principal } from '../../../accounts/principal.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import {
  isFinished,
  templateProblems,
  type DatabaseLimits,
  type StackEntry,
} from '../../../controllers/stacks/index.js';
import { STACK, STACK_EXECUTION, type Stack, type StackExecution } from '../../../crds/stacks.js';
import { ApiError } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { isDeleted } from '../../routing/deleted.js';
import { findInOrganization, type OrganizationLookup } from '../../routing/tenancy.js';

/** What the stack routes need beyond the core services: the sizes a database may have. */
export interface StackRouteServices {
  workloadsConfig: DatabaseLimits;
}

export const READ = ['stacks:read'];
export const WRITE = ['stacks:write'];
export const BASE = { area: 'stacks', auth: 'authenticated', tags: ['stacks'] } as const;

const ID = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$' } as const;

export const STACK_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: ID },
} as const satisfies ObjectSchema;

export interface StackParams {
  id: string;
}

export const STATUSES = ['pending', 'deploying', 'active', 'failed'] as const;

/** A stack of the caller's organization: another organization's, or a deleted one, is a 404. */
export async function findStack(store: ObjectStore, principal: Principal, id: string): Promise<Stack> {
  return findInOrganization(store, principal, STACKS, id);
}

export const STACKS: OrganizationLookup<Stack> = {
  type: STACK,
  objectName: objectNameOf,
  noun: 'stack',
  visible: (stack) => Boolean(stack.spec) && !isDeleted(stack),
};

export async function executionsOf(store: ObjectStore, stack: Stack): Promise<StackExecution[]> {
  const { items } = await store.list<StackExecution>(STACK_EXECUTION, {
    namespace: stack.metadata.namespace,
  });
  return items.filter((execution) => execution.spec?.stack === stack.metadata.name);
}

export function runningExecution(executions: readonly StackExecution[]): StackExecution | undefined {
  return executions.find((execution) => !isFinished(execution) && !execution.spec?.dryRun);
}

/**
 * The template's problems as one error: 400 when its shape is wrong, 422 when it is well-formed
 * but means something impossible; `details.problems` lists each with its path.
 */
export function templateError(template: unknown, limits: DatabaseLimits): ApiError | undefined {
  const problems = templateProblems(template, limits);
  if (problems.length === 0) return undefined;
  const status = problems.some((problem) => problem.status === 400) ? 400 : 422;
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new ApiError(
    status,
    status === 400 ? 'invalid_request' : 'invalid_template',
    `${first.path}: ${first.message}${more}`,
    {
      field: first.path,
      problems: problems.map(({ path, message }) => ({ path, message })),
    },
  );
}

export const STACK_SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['stk_0a1b2c3d4e5f'] },
    name: { type: 'string' },
    tenant: { type: 'string' },
    status: { type: 'string', enum: STATUSES },
    version: { type: 'integer' },
    applied_version: { type: ['integer', 'null'] },
    pending_changes: { type: 'boolean' },
    phase: { type: ['string', 'null'] },
    message: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

export const STACK_DETAIL = {
  type: 'object',
  properties: {
    ...STACK_SUMMARY.properties,
    template: { type: 'object' },
    resources: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          type: { type: 'string' },
          name: { type: 'string' },
          id: { type: ['string', 'null'] },
          status: { type: 'string' },
        },
      },
    },
    outputs: { type: 'object', additionalProperties: { type: 'string' } },
    last_execution_id: { type: ['string', 'null'] },
    conditions: { type: 'array', items: { type: 'object' } },
  },
} as const satisfies JsonSchema;

/** Masks a sensitive output's value: its length says nothing. */
export const MASKED = '********';

function updatedAt(stack: Stack): string {
  const times = [
    stack.metadata.creationTimestamp ?? '',
    stack.metadata.annotations?.[UPDATED_AT_ANNOTATION] ?? '',
    ...(stack.status?.conditions ?? []).map((condition) => condition.lastTransitionTime),
  ];
  return times.sort().at(-1)!;
}

export function describeStackSummary(stack: Stack) {
  const status = stack.status;
  const applied = status?.appliedVersion;
  return {
    id: restIdOf(stack.metadata.name),
    name: stack.spec!.name,
    tenant: stack.spec!.tenant,
    status: status?.status ?? 'pending',
    version: stack.spec!.version,
    applied_version: applied ?? null,
    pending_changes: applied !== stack.spec!.version,
    phase: status?.phase ?? null,
    message: status?.message ?? null,
    created_at: stack.metadata.creationTimestamp ?? '',
    updated_at: updatedAt(stack),
  };
}

export function outputValues(entries: readonly StackEntry[]): Record<string, string> {
  return Object.fromEntries(
    entries
      .filter((entry) => entry.section === 'outputs')
      .map((entry) => [entry.name, entry.vaultPath ? MASKED : (entry.attributes.value ?? '')]),
  );
}

export function describeStack(stack: Stack, entries: readonly StackEntry[]) {
  return {
    ...describeStackSummary(stack),
    template: stack.spec!.template,
    resources: (stack.status?.resources ?? []).map((resource) => ({
      type: resource.type,
      name: resource.name,
      id: resource.id ?? null,
      status: resource.status,
    })),
    outputs: outputValues(entries),
    last_execution_id: stack.status?.lastExecution ? restIdOf(stack.status.lastExecution) : null,
    conditions: stack.status?.conditions ?? [],
  };
}

export const EXECUTION_BODY = {
  type: 'object',
  properties: {
    execution_id: { type: 'string', examples: ['exec_0a1b2c3d4e5f'] },
    stack_id: { type: 'string' },
    operation: { type: 'string', enum: ['apply', 'destroy'] },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    phase: { type: 'string' },
    dry_run: { type: 'boolean' },
    based_on_version: { type: 'integer' },
    phases: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          status: { type: 'string' },
          started_at: { type: ['string', 'null'] },
          completed_at: { type: ['string', 'null'] },
        },
      },
    },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          resource: { type: 'string' },
          action: { type: 'string', enum: ['apply', 'remove'] },
          phase: { type: 'string' },
          status: { type: 'string' },
          message: { type: ['string', 'null'] },
          started_at: { type: ['string', 'null'] },
          completed_at: { type: ['string', 'null'] },
        },
      },
    },
    error: { type: ['string', 'null'] },
    started_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;

export function describeExecution(execution: StackExecution, firstPhase: string) {
  const status = execution.status;
  return {
    execution_id: restIdOf(execution.metadata.name),
    stack_id: restIdOf(execution.spec!.stack),
    operation: execution.spec!.operation,
    status: status?.status ?? 'running',
    phase: status?.phase ?? firstPhase,
    dry_run: execution.spec!.dryRun ?? false,
    based_on_version: execution.spec!.basedOnVersion,
    phases: (status?.phases ?? []).map((phase) => ({
      name: phase.name,
      status: phase.status,
      started_at: phase.startedAt ?? null,
      completed_at: phase.completedAt ?? null,
    })),
    steps: (status?.steps ?? []).map((step) => ({
      resource: step.key,
      action: step.action,
      phase: step.phase,
      status: step.status,
      message: step.message ?? null,
      started_at: step.startedAt ?? null,
      completed_at: step.completedAt ?? null,
    })),
    error: status?.error ?? null,
    started_at: status?.startedAt ?? execution.metadata.creationTimestamp ?? '',
    completed_at: status?.completedAt ?? null,
  };
}
