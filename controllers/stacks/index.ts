/**
 * The stacks family: Stack and StackExecution, their controllers, and the decisions the routes
 * share with them (template validation, plans, ids, what a stack applied).
 */
import type { ControllerDefinition } from '../runtime/controller.js';
import { stackExecutionController, type StackControllerOptions } from './execution-controller.js';
import { stackController } from './stack-controller.js';

export type { StackControllerOptions } from './execution-controller.js';
export { isFinished, OUTPUTS_STEP, phaseOrder } from './engine.js';
export {
  planStack,
  KNOWN_AFTER_APPLY,
  SENSITIVE,
  type StackPlan,
  type PlanChange,
  type AppliedEntry,
} from './plan.js';
export { listEntries, listJobRuns, type JobRun, type StackEntry } from './records.js';
export { deletionExecutionName } from './stack-controller.js';
export { executionOwner } from './execution-owner.js';
export {
  RESOURCE_TYPES,
  templateProblems,
  type DatabaseLimits,
  type StackTemplate,
  type TemplateProblem,
} from './template.js';

export function stackControllers(options: StackControllerOptions): ControllerDefinition[] {
  return [stackController(options), stackExecutionController(options)];
}
