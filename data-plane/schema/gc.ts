import type { Flag } from './columns.js';

/** Garbage collection reports (migration 0015_gc_reports). */
export interface GcTables {
  gc_reports: GcReportsTable;
}

/** One garbage collection run: what it found, and whether it deleted or only reported it. */
export interface GcReportsTable {
  id: string;
  started_at: string;
  finished_at: string;
  dry_run: Flag;
  retention_days: number;
  /** Records older than this were collectable. */
  cutoff: string;
  /** JSON object: collector name → why it did not run (`no control plane`). */
  skipped: string;
  /** JSON array of `GcReportItem` (jobs/garbage/types.ts). */
  items: string;
}
