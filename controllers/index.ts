import type { ControllerDefinition } from './runtime/controller.js';

/**
 * Every controller the operator runs. Each kind's folder exports its definition; the list is
 * the one place that says which run.
 */
export const CONTROLLERS: ControllerDefinition[] = [];
