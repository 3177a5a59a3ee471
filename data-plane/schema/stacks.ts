/** Stacks: what the last executions applied, and their bootstrap jobs (migration 0016_stacks). */
export interface StacksTables {
  stack_entries: StackEntriesTable;
  stack_jobs: StackJobsTable;
}

/**
 * One template entry a stack applied (a resource, secret, job, service or output): what destroy
 * and the next plan start from, whatever the template says since.
 */
export interface StackEntriesTable {
  namespace: string;
  /** The stack's object name. */
  stack: string;
  /** `resources`, `secrets`, `bootstrap`, `services`, `outputs`. */
  section: string;
  name: string;
  /** JSON: the template entry as applied, references as written. */
  config: string;
  /** JSON object of what it resolved to that holds no secret (id, endpoint, release, output value). */
  attributes: string;
  /** Where its secret value is kept (generated secrets, sensitive outputs). */
  vault_path: string | null;
  /** A service's rendered manifest. */
  artifact: string | null;
  created_at: string;
  updated_at: string;
}

/** The last run of each bootstrap job of a stack, with its log. */
export interface StackJobsTable {
  namespace: string;
  stack: string;
  name: string;
  /** The execution that ran it. */
  execution: string;
  /** `running`, `succeeded`, `failed`, `skipped`. */
  status: string;
  exit_code: number | null;
  message: string | null;
  logs: string;
  started_at: string | null;
  completed_at: string | null;
}
