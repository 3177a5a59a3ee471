/** The runs of the scheduled jobs. */
export interface JobsTables {
  job_runs: JobRunsTable;
}

export type JobTrigger = 'schedule' | 'manual';
export type JobOutcome = 'running' | 'succeeded' | 'failed';

/** One run of a background job, written when it starts and again when it finishes. */
export interface JobRunsTable {
  id: string;
  job: string;
  trigger: JobTrigger;
  started_at: string;
  finished_at: string | null;
  outcome: JobOutcome;
  /** JSON object text: what the run looked at and did. */
  summary: string;
  error: string | null;
}
