/**
 * Every label and annotation key of the `cloudplane.dev/` prefix, declared once: the controllers,
 * the workload runtimes, the jobs and the REST facade all read and write the same keys.
 */

// On every kind the API writes.

/** Written on every REST write; an object applied with kubectl falls back to its creation time. */
export const UPDATED_AT_ANNOTATION = 'cloudplane.dev/updated-at';

// Organizations and workloads.

/** On an organization's namespace and on what a workload runtime makes for it: the organization id. */
export const ORGANIZATION_LABEL = 'cloudplane.dev/organization';
/** On what a workload runtime makes for one workload: the workload id. */
export const WORKLOAD_LABEL = 'cloudplane.dev/workload';
/** On what the kubernetes runtime makes for a database: its engine. */
export const ENGINE_LABEL = 'cloudplane.dev/engine';
/** On a pod template: the Secret's resourceVersion, so a new password restarts the pod with it. */
export const CREDENTIALS_VERSION_ANNOTATION = 'cloudplane.dev/credentials-version';
/** On a KafkaUser: its password Secret's resourceVersion, so a new password is applied at once. */
export const PASSWORD_VERSION_ANNOTATION = 'cloudplane.dev/password-version';

// Data services.

/** On every organization's managed vault cluster. */
export const MANAGED_LABEL = 'cloudplane.dev/managed';
/** Labels a backup the schedule made with its database's name. */
export const SCHEDULED_BY_LABEL = 'cloudplane.dev/scheduled-by';

// Event streaming.

/** Labels the StreamingTopic objects mirrored from topics a Kafka client made. */
export const CREATED_BY_LABEL = 'cloudplane.dev/created-by';

// Stacks.

/** Labels what a stack made with the stack's object name. */
export const STACK_LABEL = 'cloudplane.dev/stack';
/** On a stack's database: how many times the resource was replaced when this database was made. */
export const EPOCH_ANNOTATION = 'cloudplane.dev/stack-epoch';
/** Labels a stack's Job with its name, which its pods carry too. */
export const STACK_JOB_LABEL = 'cloudplane.dev/stack-job';
/** Set by the API when it creates an execution: creation times have only seconds. */
export const REQUESTED_AT_ANNOTATION = 'cloudplane.dev/requested-at';
/** The last execution asked for: writing it is what makes two requests at once collide. */
export const EXECUTION_REQUEST_ANNOTATION = 'cloudplane.dev/last-execution-request';
/** Set on a stack being deleted whose resources are to be destroyed first. */
export const DESTROY_RESOURCES_ANNOTATION = 'cloudplane.dev/destroy-resources';

// VPCs.

/** Every part carries its VPC's id here, so a VPC's parts are one label selector away. */
export const VPC_LABEL = 'cloudplane.dev/vpc';

// Garbage collection.

/** An object carrying this label set to `true` is never collected, nor anything tied to it. */
export const GC_PROTECT_LABEL = 'cloudplane.dev/gc-protect';
