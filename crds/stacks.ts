import type { Condition, KubeObject } from '../control-plane/types.js';
import {
  GROUP,
  READY_MESSAGE_COLUMN,
  READY_REASON_COLUMN,
  VERSION,
  type KindDescriptor,
} from '../control-plane/kind-descriptor.js';

export type StackPhaseName = 'infrastructure' | 'secrets' | 'bootstrap' | 'services';

/**
 * A declarative template deployed in four phases. Nothing in the template is applied until an
 * execution applies it; `version` counts template replacements from 1.
 */
export interface StackSpec {
  /** The display name. */
  name: string;
  /** The tenant the stack is deployed for, as the organization names it. */
  tenant: string;
  /**
   * The template: resources, secrets, bootstrap jobs, services and outputs. Checked by the
   * platform's template schema (the REST API and the controller say what is wrong and where).
   */
  template: Record<string, unknown>;
  /**
   * Raised by one each time the template is replaced.
   * @asType integer
   * @minimum 1
   */
  version: number;
}

export type StackStatusName = 'pending' | 'deploying' | 'active' | 'failed';

/** A resource the stack made, as the spec's stack detail lists it. */
export interface StackResource {
  /** `database`, `cache`, `secret`, `job`, `service`. */
  type: string;
  /** `<section>.<name>` in the template. */
  name: string;
  /** The platform id of what was made (a database id, a vault path, a release name). */
  id?: string;
  status: string;
}

export interface StackOutputStatus {
  name: string;
  sensitive: boolean;
  /** Where a sensitive output's value is kept. */
  vaultPath?: string;
}

export interface StackStatus {
  status?: StackStatusName;
  /** The phase the last execution reached. */
  phase?: StackPhaseName;
  /**
   * The template version the last completed apply deployed.
   * @asType integer
   */
  appliedVersion?: number;
  /** The execution running now, if any. */
  activeExecution?: string;
  /** The last execution. */
  lastExecution?: string;
  message?: string;
  resources?: StackResource[];
  outputs?: StackOutputStatus[];
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type Stack = KubeObject<StackSpec, StackStatus>;

export const STACK: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'Stack',
  plural: 'stacks',
  singular: 'stack',
  namespaced: true,
  shortNames: ['stk'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Tenant', type: 'string', jsonPath: '.spec.tenant' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Version', type: 'integer', jsonPath: '.spec.version' },
    { name: 'Applied', type: 'integer', jsonPath: '.status.appliedVersion' },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ],
  typesFile: 'crds/stacks.ts',
};

export type StackOperation = 'apply' | 'destroy';

/** One apply or destroy of a stack, owned by it. Its status is the record an execution resumes from. */
export interface StackExecutionSpec {
  /** The stack's object name. */
  stack: string;
  operation: StackOperation;
  /**
   * The stack's template version when the execution was asked for.
   * @asType integer
   */
  basedOnVersion: number;
  /** The plan digest the caller applied, when given. */
  planDigest?: string;
  dryRun?: boolean;
  force?: boolean;
  /** Destroy only: remove the stack once its resources are gone. */
  deleteStack?: boolean;
}

export type ExecutionStatusName = 'running' | 'completed' | 'failed';
export type StepStatusName = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

export interface ExecutionPhase {
  name: StackPhaseName;
  status: StepStatusName;
  startedAt?: string;
  completedAt?: string;
}

export interface ExecutionStep {
  /** `<section>.<name>`, or `outputs` for the outputs, resolved last. */
  key: string;
  phase: StackPhaseName;
  /** `apply` makes the entry as the template says; `remove` takes away what was applied. */
  action: 'apply' | 'remove';
  status: StepStatusName;
  message?: string;
  startedAt?: string;
  completedAt?: string;
}

export interface StackExecutionStatus {
  status?: ExecutionStatusName;
  phase?: StackPhaseName;
  phases?: ExecutionPhase[];
  steps?: ExecutionStep[];
  /** The step that failed and why. */
  error?: string;
  startedAt?: string;
  completedAt?: string;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

export type StackExecution = KubeObject<StackExecutionSpec, StackExecutionStatus>;

export const STACK_EXECUTION: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'StackExecution',
  plural: 'stackexecutions',
  singular: 'stackexecution',
  namespaced: true,
  shortNames: ['stkx'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Stack', type: 'string', jsonPath: '.spec.stack' },
    { name: 'Operation', type: 'string', jsonPath: '.spec.operation' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Version', type: 'integer', jsonPath: '.spec.basedOnVersion' },
    { name: 'Error', type: 'string', jsonPath: '.status.error', priority: 1 },
    READY_MESSAGE_COLUMN,
  ],
  typesFile: 'crds/stacks.ts',
};

export const STACK_KINDS: KindDescriptor[] = [STACK, STACK_EXECUTION];
