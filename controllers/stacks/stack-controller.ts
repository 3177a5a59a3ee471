/**
 * Reconciles Stacks: reports status from the stack's executions and what it applied, and on
 * deletion either destroys what it applied first (when asked to) or leaves it, orphaned.
 */
import { createHash } from 'node:crypto';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { isStoreError } from '../../control-plane/types.js';
import { STACK, STACK_EXECUTION, type Stack, type StackExecution } from '../../crds/stacks.js';
import type { ControllerDefinition, ReconcileContext, Reconciler } from '../runtime/controller.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { isFinished, stackStatus } from './engine.js';
import { executionOwner } from './execution-owner.js';
import { EXECUTIONS_BY_STACK, STACK_INDEX, type StackControllerOptions } from './execution-controller.js';
import { listEntries, removeStackRecords, type StackKey } from './records.js';
import { orphanDatabases } from './resource-steps.js';
import { templateProblems, type StackTemplate } from './template.js';
import { DESTROY_RESOURCES_ANNOTATION } from '../../crds/annotations.js';

/** The execution that destroys a stack's resources before the stack goes: one per stack. */
export function deletionExecutionName(stack: Stack): string {
  return `exec-${createHash('sha256').update(`${stack.metadata.uid}/delete`).digest('hex').slice(0, 12)}`;
}

export function stackController(options: StackControllerOptions): ControllerDefinition {
  const { database } = options;

  async function destroyBeforeDeletion(
    context: ReconcileContext,
    stack: Stack,
    executions: StackExecution[],
  ): Promise<'done' | 'waiting' | 'failed'> {
    const name = deletionExecutionName(stack);
    const own = executions.find((execution) => execution.metadata.name === name);
    if (own) {
      if (own.status?.status === 'completed') return 'done';
      return own.status?.status === 'failed' ? 'failed' : 'waiting';
    }
    try {
      await context.store.create<StackExecution>(STACK_EXECUTION, {
        apiVersion: API_VERSION,
        kind: STACK_EXECUTION.kind,
        metadata: { name, namespace: stack.metadata.namespace, ownerReferences: [executionOwner(stack)] },
        spec: {
          stack: stack.metadata.name,
          operation: 'destroy',
          basedOnVersion: stack.spec!.version,
          deleteStack: true,
        },
      });
    } catch (error) {
      if (!isStoreError(error, 'AlreadyExists')) throw error;
    }
    return 'waiting';
  }

  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    const { store, cache, clock, logger } = context;
    const stack = cache.get<Stack>(STACK, namespace, name);
    if (!stack?.spec) return;
    const key: StackKey = { namespace, stack: name };
    const executions = cache.byIndex<StackExecution>(STACK_EXECUTION, STACK_INDEX, `${namespace}/${name}`);

    if (stack.metadata.deletionTimestamp) {
      if (!holdsFinalizer(stack)) return;
      if (stack.metadata.annotations?.[DESTROY_RESOURCES_ANNOTATION] === 'true') {
        if (executions.some((execution) => !isFinished(execution) && !execution.spec?.deleteStack)) {
          return { requeueAfterMs: 1_000 };
        }
        const outcome = await destroyBeforeDeletion(context, stack, executions);
        if (outcome === 'waiting') return { requeueAfterMs: 1_000 };
        if (outcome === 'failed') {
          const entries = await listEntries(database, key);
          await writeStatusIfChanged(
            store,
            STACK,
            stack,
            stackStatus(stack, { executions, entries }, clock.now()),
          );
          return;
        }
      } else {
        const kept = await orphanDatabases({ store, key });
        const entries = await listEntries(database, key);
        logger.info(
          {
            kept: [
              ...kept,
              ...entries
                .filter((entry) => entry.section !== 'resources')
                .map((entry) => `${entry.section}.${entry.name}`),
            ],
          },
          'stack removed; its resources are kept',
        );
      }
      await removeStackRecords(database, key);
      await removeFinalizer(store, STACK, stack);
      return;
    }

    const current = await addFinalizer(store, STACK, stack);
    const problems = templateProblems(current.spec!.template as StackTemplate);
    const entries = await listEntries(database, key);
    await writeStatusIfChanged(
      store,
      STACK,
      current,
      stackStatus(
        current,
        {
          executions,
          entries,
          ...(problems.length > 0
            ? { templateProblem: problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ') }
            : {}),
        },
        clock.now(),
      ),
    );
  };

  return {
    name: 'stack',
    for: STACK,
    owns: [STACK_EXECUTION],
    indexes: [EXECUTIONS_BY_STACK],
    reconcile,
  };
}
