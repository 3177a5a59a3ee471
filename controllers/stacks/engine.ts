/**
 * The decisions of the stack controllers, pure: which steps an execution runs, what its phases
 * say, and what a stack's status is given its executions and what it applied.
 */
import type {
  ExecutionPhase,
  ExecutionStep,
  Stack,
  StackExecution,
  StackExecutionStatus,
  StackPhaseName,
  StackResource,
  StackStatus,
  StackStatusName,
} from '../../crds/stacks.js';
import { setCondition } from '../runtime/conditions.js';
import type { StackEntry } from './records.js';
import { applySteps, destroySteps, STACK_PHASES, type StackTemplate } from './template.js';

/** The key of the step that resolves the outputs once everything else is applied. */
export const OUTPUTS_STEP = 'outputs';

const SECTION_PHASE: Record<StackEntry['section'], StackPhaseName> = {
  resources: 'infrastructure',
  secrets: 'secrets',
  bootstrap: 'bootstrap',
  services: 'services',
  outputs: 'services',
};

/** The applied entries as the template they make up, so destroy order can be computed from it. */
export function appliedTemplate(entries: readonly StackEntry[]): StackTemplate {
  const template: Record<string, Record<string, unknown>> = {};
  for (const entry of entries) {
    (template[entry.section] ??= {})[entry.name] = entry.config;
  }
  return template as StackTemplate;
}

function removalSteps(entries: readonly StackEntry[]): ExecutionStep[] {
  const outputs = entries
    .filter((entry) => entry.section === 'outputs')
    .map((entry) => ({ key: `outputs.${entry.name}`, phase: 'services' as const }));
  const others = destroySteps(appliedTemplate(entries.filter((entry) => entry.section !== 'outputs')));
  return [...outputs, ...others].map(({ key, phase }) => ({
    key,
    phase,
    action: 'remove',
    status: 'pending',
  }));
}

/**
 * The steps of an apply: what the template no longer has is removed first (reverse order), then
 * every entry is applied in phase and dependency order, then the outputs are resolved.
 */
export function applyExecutionSteps(
  template: StackTemplate,
  entries: readonly StackEntry[],
): ExecutionStep[] {
  const wanted = new Set<string>();
  for (const [section, names] of Object.entries(template)) {
    if (names && typeof names === 'object' && section !== 'version' && section !== 'name') {
      for (const name of Object.keys(names as object)) wanted.add(`${section}.${name}`);
    }
  }
  const gone = entries.filter((entry) => !wanted.has(`${entry.section}.${entry.name}`));
  return [
    ...removalSteps(gone),
    ...applySteps(template).map(({ key, phase }): ExecutionStep => ({
      key,
      phase,
      action: 'apply',
      status: 'pending',
    })),
    { key: OUTPUTS_STEP, phase: 'services', action: 'apply', status: 'pending' },
  ];
}

/** The steps of a destroy: everything applied, in the reverse of apply order. */
export function destroyExecutionSteps(entries: readonly StackEntry[]): ExecutionStep[] {
  return removalSteps(entries);
}

/** The phase of each step's section. */
export function phaseOfSection(section: StackEntry['section']): StackPhaseName {
  return SECTION_PHASE[section];
}

/** The phases in the order the operation runs them. */
export function phaseOrder(operation: 'apply' | 'destroy'): StackPhaseName[] {
  return operation === 'apply' ? [...STACK_PHASES] : [...STACK_PHASES].reverse();
}

/**
 * Each phase's status from its steps: completed when all are (or when it has none and a later
 * phase started), failed when one failed, running when one started.
 */
export function phasesOf(operation: 'apply' | 'destroy', steps: readonly ExecutionStep[]): ExecutionPhase[] {
  const order = phaseOrder(operation);
  const phases = order.map((name): ExecutionPhase => {
    const own = steps.filter((step) => step.phase === name);
    const started = own.map((step) => step.startedAt).filter((at): at is string => at !== undefined);
    const completed = own.map((step) => step.completedAt).filter((at): at is string => at !== undefined);
    const status = own.some((step) => step.status === 'failed')
      ? 'failed'
      : own.length > 0 && own.every((step) => step.status === 'completed' || step.status === 'skipped')
        ? 'completed'
        : own.some((step) => step.status !== 'pending')
          ? 'running'
          : 'pending';
    return {
      name,
      status,
      ...(started.length > 0 ? { startedAt: started.sort()[0] } : {}),
      ...(status === 'completed' && completed.length > 0 ? { completedAt: completed.sort().at(-1) } : {}),
    };
  });
  // A phase with no steps is complete once the run has passed it.
  return phases.map((phase, index) => {
    if (phase.status !== 'pending' || steps.some((step) => step.phase === phase.name)) return phase;
    const later = phases.slice(index + 1).some((other) => other.status !== 'pending');
    const allDone = steps.every((step) => step.status === 'completed' || step.status === 'skipped');
    return later || (allDone && steps.length > 0) ? { ...phase, status: 'completed' } : phase;
  });
}

/** The phase the execution is in: that of its first step not done, else the last one's. */
export function currentPhase(
  operation: 'apply' | 'destroy',
  steps: readonly ExecutionStep[],
): StackPhaseName {
  const open = steps.find((step) => step.status !== 'completed' && step.status !== 'skipped');
  if (open) return open.phase;
  return steps.at(-1)?.phase ?? phaseOrder(operation)[0]!;
}

export function isFinished(execution: StackExecution): boolean {
  const status = execution.status?.status;
  return status === 'completed' || status === 'failed';
}

const RESOURCE_TYPE_OF_SECTION: Record<string, string> = {
  secrets: 'secret',
  bootstrap: 'job',
  services: 'service',
};

/** The spec's `resources` of a stack detail, from what it applied. */
export function resourcesOf(entries: readonly StackEntry[]): StackResource[] {
  return entries
    .filter((entry) => entry.section !== 'outputs')
    .map((entry) => {
      const config = entry.config as { type?: string };
      const type =
        entry.section === 'resources'
          ? (config.type ?? 'resource')
          : RESOURCE_TYPE_OF_SECTION[entry.section]!;
      const id = entry.attributes.id ?? entry.vaultPath ?? entry.attributes.release;
      return {
        type,
        name: `${entry.section}.${entry.name}`,
        ...(id === undefined ? {} : { id }),
        status: entry.attributes.status ?? 'applied',
      };
    });
}

/** When an execution last did something: creation times have only seconds, these have milliseconds. */
function lastActivity(execution: StackExecution): string {
  const status = execution.status;
  return status?.completedAt ?? status?.startedAt ?? execution.metadata.creationTimestamp ?? '';
}

function newest(executions: readonly StackExecution[]): StackExecution[] {
  return [...executions].sort(
    (a, b) =>
      lastActivity(b).localeCompare(lastActivity(a)) || b.metadata.name.localeCompare(a.metadata.name),
  );
}

export interface StackFacts {
  executions: readonly StackExecution[];
  entries: readonly StackEntry[];
  /** What is wrong with the template, when something is. */
  templateProblem?: string;
}

/**
 * The stack's status: `deploying` while an execution runs; otherwise what the last execution of
 * the current template version ended in (`active` after an apply, `failed`), and `pending` when
 * the template changed since, or nothing was applied (a destroy ends there too).
 */
export function stackStatus(stack: Stack, facts: StackFacts, now: Date): StackStatus {
  const generation = stack.metadata.generation;
  const ordered = newest(facts.executions.filter((execution) => !execution.spec?.dryRun));
  const running = ordered.find((execution) => !isFinished(execution));
  const lastApply = ordered.find(
    (execution) => execution.spec?.operation === 'apply' && execution.status?.status === 'completed',
  );
  const lastDestroy = ordered.find(
    (execution) => execution.spec?.operation === 'destroy' && execution.status?.status === 'completed',
  );
  const destroyedSince =
    lastDestroy !== undefined &&
    (lastApply === undefined || lastActivity(lastDestroy) > lastActivity(lastApply));
  const appliedVersion = lastApply && !destroyedSince ? lastApply.spec!.basedOnVersion : undefined;
  const last = ordered.find(isFinished);

  let status: StackStatusName;
  let message: string | undefined;
  if (running) {
    status = 'deploying';
  } else if (facts.templateProblem) {
    status = 'failed';
    message = facts.templateProblem;
  } else if (last?.status?.status === 'failed' && last.spec!.basedOnVersion === stack.spec!.version) {
    status = 'failed';
    message = last.status.error;
  } else if (appliedVersion !== undefined && appliedVersion === stack.spec!.version) {
    status = 'active';
  } else {
    status = 'pending';
  }
  const shown = running ?? last;
  const phase = shown?.status?.phase;
  const outputs = facts.entries
    .filter((entry) => entry.section === 'outputs')
    .map((entry) => ({
      name: entry.name,
      sensitive: entry.vaultPath !== undefined,
      ...(entry.vaultPath === undefined ? {} : { vaultPath: entry.vaultPath }),
    }));

  let conditions = stack.status?.conditions ?? [];
  conditions = setCondition(
    conditions,
    {
      type: 'Ready',
      status: status === 'active' ? 'True' : 'False',
      reason:
        status === 'active'
          ? 'Applied'
          : status === 'deploying'
            ? 'Deploying'
            : status === 'failed'
              ? 'Failed'
              : 'PendingChanges',
      message:
        message ?? (status === 'active' ? `version ${appliedVersion} is applied` : `the stack is ${status}`),
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    },
    now,
  );
  conditions = setCondition(
    conditions,
    {
      type: 'Reconciling',
      status: running ? 'True' : 'False',
      reason: running ? 'ExecutionRunning' : 'Idle',
      message: running
        ? `${running.spec!.operation} ${running.metadata.name} is running`
        : 'no execution is running',
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    },
    now,
  );
  conditions = setCondition(
    conditions,
    {
      type: 'Stalled',
      status: status === 'failed' ? 'True' : 'False',
      reason:
        status === 'failed' ? (facts.templateProblem ? 'InvalidTemplate' : 'ExecutionFailed') : 'Progressing',
      message: status === 'failed' ? (message ?? 'the last execution failed') : 'nothing is stalled',
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    },
    now,
  );

  return {
    status,
    ...(phase === undefined ? {} : { phase }),
    ...(appliedVersion === undefined ? {} : { appliedVersion }),
    ...(running ? { activeExecution: running.metadata.name } : {}),
    ...(last || running ? { lastExecution: (running ?? last)!.metadata.name } : {}),
    ...(message === undefined ? {} : { message }),
    resources: resourcesOf(facts.entries),
    outputs,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions,
  };
}

/**
 * An execution's conditions as kstatus reads a Job: `Ready` once it completed (a terminal
 * success), `Reconciling` while it runs, and `Stalled` with the failed step's message once it
 * failed, since nothing retries it until someone asks for another execution.
 */
export function executionConditions(
  status: StackExecutionStatus,
  generation: number | undefined,
  now: Date,
): StackExecutionStatus {
  const state = status.status ?? 'running';
  const failure = status.error ?? 'the execution failed';
  const observed = generation === undefined ? {} : { observedGeneration: generation };
  let conditions = setCondition(
    status.conditions,
    {
      type: 'Ready',
      status: state === 'completed' ? 'True' : 'False',
      reason: { running: 'Running', completed: 'Completed', failed: 'StepFailed' }[state],
      message: {
        running: `the ${status.phase ?? 'first'} phase is running`,
        completed: 'every step is done',
        failed: failure,
      }[state],
      ...observed,
    },
    now,
  );
  conditions = setCondition(
    conditions,
    {
      type: 'Reconciling',
      status: state === 'running' ? 'True' : 'False',
      reason: state === 'running' ? 'Running' : 'Finished',
      message: state === 'running' ? 'the execution is running its steps' : `the execution ${state}`,
      ...observed,
    },
    now,
  );
  conditions = setCondition(
    conditions,
    {
      type: 'Stalled',
      status: state === 'failed' ? 'True' : 'False',
      reason: state === 'failed' ? 'StepFailed' : 'Progressing',
      message: state === 'failed' ? failure : 'nothing is stalled',
      ...observed,
    },
    now,
  );
  return { ...status, conditions };
}
