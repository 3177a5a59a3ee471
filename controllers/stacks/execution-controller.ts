/**
 * Runs StackExecutions. An execution's status is its record: the steps it will take, in order,
 * each with its status. A reconcile picks up at the first step not done — after a restart too —
 * runs it (steps are idempotent), writes what happened, and goes on until a step must wait, one
 * fails, or all are done. Only one execution of a stack runs at a time: a later one waits.
 */
import { isStoreError } from '../../control-plane/types.js';
import {
  STACK,
  STACK_EXECUTION,
  type ExecutionStep,
  type Stack,
  type StackExecution,
  type StackExecutionStatus,
} from '../../crds/stacks.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { VaultEngine } from '../../vault/vault-engine.js';
import { WorkloadError, type WorkloadRuntime } from '../../workloads/runtime.js';
import type {
  CacheIndex,
  ControllerDefinition,
  ReconcileContext,
  Reconciler,
} from '../runtime/controller.js';
import {
  applyExecutionSteps,
  currentPhase,
  destroyExecutionSteps,
  isFinished,
  OUTPUTS_STEP,
  phasesOf,
} from './engine.js';
import { executionOwner } from './execution-owner.js';
import { applyJob, removeJob } from './job-steps.js';
import { listEntries, type StackEntry, type StackKey } from './records.js';
import { applyResource, removeResource } from './resource-steps.js';
import { applyOutputs, applySecret, removeOutput, removeSecret } from './secret-steps.js';
import { applyService, removeService } from './service-steps.js';
import { StepFailure, type StepContext, type StepOutcome } from './step-context.js';
import { templateProblems, type StackTemplate } from './template.js';
import { restIdOf } from '../../crds/ids.js';
import { REQUESTED_AT_ANNOTATION } from '../../crds/annotations.js';

export interface StackControllerOptions {
  database: DataPlane;
  vault: VaultEngine;
  runtime: WorkloadRuntime;
}

/** How long one reconcile keeps taking steps before it yields the worker to other objects. */
const STEP_BUDGET_MS = 5_000;

/** The executions of a stack, by `<namespace>/<spec.stack>`. */
export const STACK_INDEX = 'stack';

export const EXECUTIONS_BY_STACK: CacheIndex = {
  type: STACK_EXECUTION,
  name: STACK_INDEX,
  keys: (object) => {
    const stack = (object as StackExecution).spec?.stack;
    return stack === undefined ? [] : [`${object.metadata.namespace ?? ''}/${stack}`];
  },
};

/** When an execution was asked for: the API's annotation (milliseconds), else its creation. */
function requestedAt(execution: StackExecution): string {
  return (
    execution.metadata.annotations?.[REQUESTED_AT_ANNOTATION] ?? execution.metadata.creationTimestamp ?? ''
  );
}

/**
 * One execution of a stack runs at a time: one that started goes on to its end, and the others
 * start in the order they were asked for.
 */
export function mustWaitFor(execution: StackExecution, other: StackExecution): boolean {
  if (other.status?.steps) return true;
  const mine = requestedAt(execution);
  const theirs = requestedAt(other);
  return theirs < mine || (theirs === mine && other.metadata.name < execution.metadata.name);
}

function runStep(context: StepContext, template: StackTemplate, step: ExecutionStep): Promise<StepOutcome> {
  if (step.key === OUTPUTS_STEP) return applyOutputs(context, template);
  const [section, ...rest] = step.key.split('.');
  const name = rest.join('.');
  const remove = step.action === 'remove';
  switch (section) {
    case 'resources':
      return remove
        ? removeResource(context, name)
        : applyResource(context, name, template.resources![name]!);
    case 'secrets':
      return remove ? removeSecret(context, name) : applySecret(context, name, template.secrets![name]!);
    case 'bootstrap':
      return remove ? removeJob(context, name) : applyJob(context, name, template.bootstrap![name]!);
    case 'services':
      return remove ? removeService(context, name) : applyService(context, name, template.services![name]!);
    case 'outputs':
      return removeOutput(context, name);
    default:
      throw new StepFailure(`${step.key}: not a step this platform knows`);
  }
}

function withSteps(
  execution: StackExecution,
  steps: ExecutionStep[],
  extra: Partial<StackExecutionStatus> = {},
): StackExecutionStatus {
  const operation = execution.spec!.operation;
  return {
    ...execution.status,
    status: execution.status?.status ?? 'running',
    phase: currentPhase(operation, steps),
    phases: phasesOf(operation, steps),
    steps,
    ...(execution.metadata.generation === undefined
      ? {}
      : { observedGeneration: execution.metadata.generation }),
    ...extra,
  };
}

/** Runs StackExecutions to their end, step by step, resuming from their recorded steps. */
export function stackExecutionController(options: StackControllerOptions): ControllerDefinition {
  const { database, vault, runtime } = options;

  async function write(context: ReconcileContext, execution: StackExecution, status: StackExecutionStatus) {
    return context.store.updateStatus<StackExecution>(STACK_EXECUTION, { ...execution, status });
  }

  async function fail(
    context: ReconcileContext,
    execution: StackExecution,
    steps: ExecutionStep[],
    error: string,
  ) {
    const now = context.clock.now().toISOString();
    context.logger.warn({ error }, 'stack execution failed');
    context.events.warning(execution, 'StepFailed', error);
    await write(
      context,
      execution,
      withSteps(execution, steps, {
        status: 'failed',
        error,
        completedAt: now,
        startedAt: execution.status?.startedAt ?? now,
      }),
    );
  }

  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    const { store, cache, clock, logger } = context;
    // The store, not the cache: each step's record must be read back as this process wrote it.
    let execution: StackExecution;
    try {
      execution = await store.get<StackExecution>(STACK_EXECUTION, namespace, name);
    } catch (error) {
      if (isStoreError(error, 'NotFound')) return;
      throw error;
    }
    if (!execution.spec || isFinished(execution)) return;
    const spec = execution.spec;

    let stack: Stack;
    try {
      stack = await store.get<Stack>(STACK, namespace, spec.stack);
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
      await fail(context, execution, execution.status?.steps ?? [], `stack ${spec.stack} does not exist`);
      return;
    }

    // An execution made with kubectl names its stack only in spec: the stack adopts it, so the
    // stack controller hears of it like of one the API made.
    if (!execution.metadata.ownerReferences?.some((owner) => owner.controller)) {
      execution = await store.update<StackExecution>(STACK_EXECUTION, {
        ...execution,
        metadata: {
          ...execution.metadata,
          ownerReferences: [...(execution.metadata.ownerReferences ?? []), executionOwner(stack)],
        },
      });
    }

    if (!spec.dryRun && !execution.status?.steps) {
      const others = cache
        .byIndex<StackExecution>(STACK_EXECUTION, STACK_INDEX, `${namespace}/${spec.stack}`)
        .filter((other) => other.metadata.name !== name && !isFinished(other) && !other.spec?.dryRun);
      if (others.some((other) => mustWaitFor(execution, other))) return { requeueAfterMs: 1_000 };
    }
    const key: StackKey = { namespace, stack: stack.metadata.name };
    const template = stack.spec!.template as StackTemplate;
    const now = () => clock.now().toISOString();

    if (!execution.status?.steps) {
      if (spec.operation === 'apply' && stack.spec!.version !== spec.basedOnVersion && !spec.force) {
        const versions = `${spec.basedOnVersion} → ${stack.spec!.version}`;
        await fail(
          context,
          execution,
          [],
          `the template changed since the apply was asked for (version ${versions})`,
        );
        return;
      }
      if (spec.operation === 'apply') {
        const problems = templateProblems(template);
        if (problems.length > 0) {
          await fail(
            context,
            execution,
            [],
            problems.map((problem) => `${problem.path}: ${problem.message}`).join('; '),
          );
          return;
        }
      }
      const entries = await listEntries(database, key);
      let steps =
        spec.operation === 'apply' ? applyExecutionSteps(template, entries) : destroyExecutionSteps(entries);
      if (spec.dryRun) {
        steps = steps.map((step) => ({
          ...step,
          status: 'skipped',
          message: 'dry run: nothing was changed',
        }));
        await write(
          context,
          execution,
          withSteps(execution, steps, { status: 'completed', startedAt: now(), completedAt: now() }),
        );
        return;
      }
      execution = await write(
        context,
        execution,
        withSteps(execution, steps, { status: 'running', startedAt: now() }),
      );
      logger.info({ operation: spec.operation, steps: steps.length }, 'stack execution started');
    }

    const deadline = Date.now() + STEP_BUDGET_MS;
    let steps = [...execution.status!.steps!];
    for (;;) {
      const index = steps.findIndex((step) => step.status !== 'completed' && step.status !== 'skipped');
      if (index < 0) {
        await write(
          context,
          execution,
          withSteps(execution, steps, { status: 'completed', completedAt: now() }),
        );
        logger.info({ operation: spec.operation }, 'stack execution completed');
        return;
      }
      const step = steps[index]!;
      if (step.status === 'failed') return;
      if (step.status === 'pending') {
        steps[index] = { ...step, status: 'running', startedAt: now() };
        execution = await write(context, execution, withSteps(execution, steps));
      }
      const entries = await listEntries(database, key);
      const stepContext: StepContext = {
        store,
        database,
        vault,
        runtime,
        clock,
        logger,
        stack,
        execution,
        key,
        stackId: restIdOf(stack.metadata.name),
        entries: new Map(entries.map((entry: StackEntry) => [`${entry.section}.${entry.name}`, entry])),
      };
      let outcome: StepOutcome;
      try {
        outcome = await runStep(stepContext, template, steps[index]!);
      } catch (error) {
        if (!(error instanceof StepFailure) && !(error instanceof WorkloadError)) throw error;
        const message = error instanceof StepFailure ? error.message : `${step.key}: ${error.message}`;
        steps[index] = { ...steps[index]!, status: 'failed', message, completedAt: now() };
        await fail(context, execution, steps, message);
        return;
      }
      if (outcome.state === 'waiting') {
        const waiting = { ...steps[index]!, ...(outcome.message ? { message: outcome.message } : {}) };
        if (waiting.message !== steps[index]!.message) {
          steps[index] = waiting;
          execution = await write(context, execution, withSteps(execution, steps));
        }
        return { requeueAfterMs: outcome.afterMs };
      }
      const { message: _previous, ...rest } = steps[index]!;
      steps[index] = {
        ...rest,
        status: 'completed',
        completedAt: now(),
        ...(outcome.message ? { message: outcome.message } : {}),
      };
      execution = await write(context, execution, withSteps(execution, steps));
      logger.info({ step: step.key, action: step.action }, 'stack step completed');
      context.events.normal(
        execution,
        step.action === 'remove' ? 'Removed' : 'Applied',
        `${step.key}: ${outcome.message ?? `${step.action} done`}`,
      );
      if (Date.now() > deadline) return { requeueAfterMs: 0 };
      steps = [...execution.status!.steps!];
    }
  };

  return {
    name: 'stack-execution',
    for: STACK_EXECUTION,
    indexes: [EXECUTIONS_BY_STACK],
    reconcile,
    concurrency: 4,
  };
}
