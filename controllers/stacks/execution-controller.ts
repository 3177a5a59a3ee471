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
  ReconcileResult,
  Reconciler,
} from '../runtime/controller.js';
import {
  applyExecutionSteps,
  currentPhase,
  destroyExecutionSteps,
  executionConditions,
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

/** What one reconcile of an execution works with. */
interface ExecutionRun {
  context: ReconcileContext;
  options: StackControllerOptions;
  stack: Stack;
  key: StackKey;
  template: StackTemplate;
  now(): string;
}

function writeStatus(
  context: ReconcileContext,
  execution: StackExecution,
  status: StackExecutionStatus,
): Promise<StackExecution> {
  return context.store.updateStatus<StackExecution>(STACK_EXECUTION, {
    ...execution,
    status: executionConditions(status, execution.metadata.generation, context.clock.now()),
  });
}

async function failExecution(
  context: ReconcileContext,
  execution: StackExecution,
  steps: ExecutionStep[],
  error: string,
): Promise<void> {
  const now = context.clock.now().toISOString();
  // The runtime records the Warning event (StepFailed) from the Ready and Stalled this writes.
  context.logger.warn({ error }, 'stack execution failed');
  await writeStatus(
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

/** The execution as this process last wrote it (the store, not the cache), or undefined when gone. */
async function readExecution(
  context: ReconcileContext,
  namespace: string,
  name: string,
): Promise<StackExecution | undefined> {
  try {
    return await context.store.get<StackExecution>(STACK_EXECUTION, namespace, name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** The execution's stack; when it does not exist, the execution fails and this is undefined. */
async function readStack(context: ReconcileContext, execution: StackExecution): Promise<Stack | undefined> {
  const spec = execution.spec!;
  try {
    return await context.store.get<Stack>(STACK, execution.metadata.namespace ?? '', spec.stack);
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
    await failExecution(
      context,
      execution,
      execution.status?.steps ?? [],
      `stack ${spec.stack} does not exist`,
    );
    return undefined;
  }
}

/**
 * An execution made with kubectl names its stack only in spec: the stack adopts it, so the stack
 * controller hears of it like of one the API made.
 */
async function adoptedByStack(
  context: ReconcileContext,
  execution: StackExecution,
  stack: Stack,
): Promise<StackExecution> {
  if (execution.metadata.ownerReferences?.some((owner) => owner.controller)) return execution;
  return context.store.update<StackExecution>(STACK_EXECUTION, {
    ...execution,
    metadata: {
      ...execution.metadata,
      ownerReferences: [...(execution.metadata.ownerReferences ?? []), executionOwner(stack)],
    },
  });
}

/** Whether another execution of the same stack goes first (see `mustWaitFor`). */
function waitsForAnother(context: ReconcileContext, execution: StackExecution): boolean {
  const spec = execution.spec!;
  if (spec.dryRun || execution.status?.steps) return false;
  const namespace = execution.metadata.namespace ?? '';
  return context.cache
    .byIndex<StackExecution>(STACK_EXECUTION, STACK_INDEX, `${namespace}/${spec.stack}`)
    .filter(
      (other) => other.metadata.name !== execution.metadata.name && !isFinished(other) && !other.spec?.dryRun,
    )
    .some((other) => mustWaitFor(execution, other));
}

/** Why an apply cannot start: the template changed since it was asked for, or is invalid. */
function applyRefusal(execution: StackExecution, run: ExecutionRun): string | undefined {
  const spec = execution.spec!;
  if (spec.operation !== 'apply') return undefined;
  if (run.stack.spec!.version !== spec.basedOnVersion && !spec.force) {
    const versions = `${spec.basedOnVersion} → ${run.stack.spec!.version}`;
    return `the template changed since the apply was asked for (version ${versions})`;
  }
  const problems = templateProblems(run.template);
  if (problems.length === 0) return undefined;
  return problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
}

/**
 * Plans a new execution's steps and records them: a dry run ends there with every step skipped.
 * Undefined when the execution ended (refused, or a dry run); else the running execution.
 */
async function startExecution(
  execution: StackExecution,
  run: ExecutionRun,
): Promise<StackExecution | undefined> {
  const { context, now } = run;
  const spec = execution.spec!;
  const refusal = applyRefusal(execution, run);
  if (refusal !== undefined) {
    await failExecution(context, execution, [], refusal);
    return undefined;
  }
  const entries = await listEntries(run.options.database, run.key);
  const steps =
    spec.operation === 'apply' ? applyExecutionSteps(run.template, entries) : destroyExecutionSteps(entries);
  if (spec.dryRun) {
    const skipped = steps.map((step) => ({
      ...step,
      status: 'skipped' as const,
      message: 'dry run: nothing was changed',
    }));
    await writeStatus(
      context,
      execution,
      withSteps(execution, skipped, { status: 'completed', startedAt: now(), completedAt: now() }),
    );
    return undefined;
  }
  const started = await writeStatus(
    context,
    execution,
    withSteps(execution, steps, { status: 'running', startedAt: now() }),
  );
  context.logger.info({ operation: spec.operation, steps: steps.length }, 'stack execution started');
  return started;
}

async function stepContextOf(execution: StackExecution, run: ExecutionRun): Promise<StepContext> {
  const { database, vault, runtime } = run.options;
  const { store, clock, logger } = run.context;
  const entries = await listEntries(database, run.key);
  return {
    store,
    database,
    vault,
    runtime,
    clock,
    logger,
    stack: run.stack,
    execution,
    key: run.key,
    stackId: restIdOf(run.stack.metadata.name),
    entries: new Map(entries.map((entry: StackEntry) => [`${entry.section}.${entry.name}`, entry])),
  };
}

/** What taking one step came to: the execution goes on, or this reconcile ends with `result`. */
type StepTaken = { next: 'continue'; execution: StackExecution } | { next: 'stop'; result?: ReconcileResult };

/** Takes the step at `index`: marks it running, runs it, and records its outcome. */
async function takeStep(execution: StackExecution, index: number, run: ExecutionRun): Promise<StepTaken> {
  const { context, now } = run;
  const steps = [...execution.status!.steps!];
  const step = steps[index]!;
  if (step.status === 'pending') {
    steps[index] = { ...step, status: 'running', startedAt: now() };
    execution = await writeStatus(context, execution, withSteps(execution, steps));
  }
  let outcome: StepOutcome;
  try {
    outcome = await runStep(await stepContextOf(execution, run), run.template, steps[index]!);
  } catch (error) {
    if (!(error instanceof StepFailure) && !(error instanceof WorkloadError)) throw error;
    const message = error instanceof StepFailure ? error.message : `${step.key}: ${error.message}`;
    steps[index] = { ...steps[index]!, status: 'failed', message, completedAt: now() };
    await failExecution(context, execution, steps, message);
    return { next: 'stop' };
  }
  if (outcome.state === 'waiting') {
    const waiting = { ...steps[index]!, ...(outcome.message ? { message: outcome.message } : {}) };
    if (waiting.message !== steps[index]!.message) {
      steps[index] = waiting;
      await writeStatus(context, execution, withSteps(execution, steps));
    }
    return { next: 'stop', result: { requeueAfterMs: outcome.afterMs } };
  }
  const { message: _previous, ...rest } = steps[index]!;
  steps[index] = {
    ...rest,
    status: 'completed',
    completedAt: now(),
    ...(outcome.message ? { message: outcome.message } : {}),
  };
  execution = await writeStatus(context, execution, withSteps(execution, steps));
  context.logger.info({ step: step.key, action: step.action }, 'stack step completed');
  context.events.normal(
    execution,
    step.action === 'remove' ? 'Removed' : 'Applied',
    `${step.key}: ${outcome.message ?? `${step.action} done`}`,
  );
  return { next: 'continue', execution };
}

/**
 * Takes the execution's steps in order until one waits or fails, all are done, or the step budget
 * is spent (then the worker is yielded and the reconcile comes back at once).
 */
async function runSteps(execution: StackExecution, run: ExecutionRun): Promise<ReconcileResult | void> {
  const deadline = Date.now() + STEP_BUDGET_MS;
  for (;;) {
    const steps = execution.status!.steps!;
    const index = steps.findIndex((step) => step.status !== 'completed' && step.status !== 'skipped');
    if (index < 0) {
      await writeStatus(
        run.context,
        execution,
        withSteps(execution, steps, { status: 'completed', completedAt: run.now() }),
      );
      run.context.logger.info({ operation: execution.spec!.operation }, 'stack execution completed');
      return;
    }
    if (steps[index]!.status === 'failed') return;
    const taken = await takeStep(execution, index, run);
    if (taken.next === 'stop') return taken.result;
    execution = taken.execution;
    if (Date.now() > deadline) return { requeueAfterMs: 0 };
  }
}

/** Runs StackExecutions to their end, step by step, resuming from their recorded steps. */
export function stackExecutionController(options: StackControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let execution = await readExecution(context, namespace, name);
    if (!execution?.spec || isFinished(execution)) return;
    const stack = await readStack(context, execution);
    if (!stack) return;
    execution = await adoptedByStack(context, execution, stack);
    if (waitsForAnother(context, execution)) return { requeueAfterMs: 1_000 };
    const run: ExecutionRun = {
      context,
      options,
      stack,
      key: { namespace, stack: stack.metadata.name },
      template: stack.spec!.template as StackTemplate,
      now: () => context.clock.now().toISOString(),
    };
    if (!execution.status?.steps) {
      const started = await startExecution(execution, run);
      if (!started) return;
      execution = started;
    }
    return runSteps(execution, run);
  };

  return {
    name: 'stack-execution',
    for: STACK_EXECUTION,
    indexes: [EXECUTIONS_BY_STACK],
    reconcile,
    concurrency: 4,
  };
}
