/**
 * The data-plane tables as Kysely sees them.
 *
 * Portable representations, identical on SQLite and PostgreSQL:
 * - timestamps are ISO-8601 UTC text from `Date.prototype.toISOString()`
 *   (`2024-05-01T03:00:00.000Z`). The fixed width makes text order chronological order, so
 *   range filters and `order by` work the same in both dialects, and rows read back as the same
 *   string everywhere (a `timestamptz` would come back as a `Date` from pg and a string from SQLite).
 * - JSON is text, written with `JSON.stringify` and read with `JSON.parse`.
 */
export interface DataPlane {
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
