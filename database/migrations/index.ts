import type { Kysely } from 'kysely';
import * as jobRuns from './0001_job_runs.js';

/** One schema change. Names sort in the order they apply; a released migration never changes. */
export interface DataPlaneMigration {
  name: string;
  up(db: Kysely<unknown>): Promise<void>;
}

/** Every data-plane migration, oldest first. Append new ones; never reorder, rename or remove. */
export const MIGRATIONS: readonly DataPlaneMigration[] = [{ name: '0001_job_runs', up: jobRuns.up }];
