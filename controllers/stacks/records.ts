/**
 * What a stack applied, kept in the data plane entry by entry: destroy and the next plan start
 * from it whatever the template says since. Also the last run of each bootstrap job, with its log.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { StackEntriesTable, StackJobsTable } from '../../data-plane/schema.js';

export type EntrySection = 'resources' | 'secrets' | 'bootstrap' | 'services' | 'outputs';

export interface StackEntry {
  section: EntrySection;
  name: string;
  /** The template entry as applied, references as written. */
  config: unknown;
  /** What it resolved to that holds no secret. */
  attributes: Record<string, string>;
  vaultPath?: string;
  artifact?: string;
  createdAt: string;
  updatedAt: string;
}

export interface StackKey {
  namespace: string;
  /** The stack's object name. */
  stack: string;
}

function entryOf(row: StackEntriesTable): StackEntry {
  return {
    section: row.section as EntrySection,
    name: row.name,
    config: JSON.parse(row.config) as unknown,
    attributes: JSON.parse(row.attributes) as Record<string, string>,
    ...(row.vault_path === null ? {} : { vaultPath: row.vault_path }),
    ...(row.artifact === null ? {} : { artifact: row.artifact }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listEntries(database: DataPlane, key: StackKey): Promise<StackEntry[]> {
  const rows = await database.kysely
    .selectFrom('stack_entries')
    .selectAll()
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .orderBy('section')
    .orderBy('name')
    .execute();
  return rows.map(entryOf);
}

/** Records an entry as applied now, keeping when it was first made. */
export async function saveEntry(
  database: DataPlane,
  key: StackKey,
  entry: Omit<StackEntry, 'createdAt' | 'updatedAt'>,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const values = {
    config: JSON.stringify(entry.config),
    attributes: JSON.stringify(entry.attributes),
    vault_path: entry.vaultPath ?? null,
    artifact: entry.artifact ?? null,
    updated_at: at,
  };
  await database.kysely
    .insertInto('stack_entries')
    .values({ ...key, section: entry.section, name: entry.name, ...values, created_at: at })
    .onConflict((conflict) => conflict.columns(['namespace', 'stack', 'section', 'name']).doUpdateSet(values))
    .execute();
}

export async function removeEntry(
  database: DataPlane,
  key: StackKey,
  section: EntrySection,
  name: string,
): Promise<void> {
  await database.kysely
    .deleteFrom('stack_entries')
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .where('section', '=', section)
    .where('name', '=', name)
    .execute();
}

export type JobRunStatus = 'running' | 'succeeded' | 'failed' | 'skipped';

export interface JobRun {
  name: string;
  execution: string;
  status: JobRunStatus;
  exitCode: number | null;
  message?: string;
  logs: string;
  startedAt?: string;
  completedAt?: string;
}

function jobRunOf(row: StackJobsTable): JobRun {
  return {
    name: row.name,
    execution: row.execution,
    status: row.status as JobRunStatus,
    exitCode: row.exit_code,
    ...(row.message === null ? {} : { message: row.message }),
    logs: row.logs,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.completed_at === null ? {} : { completedAt: row.completed_at }),
  };
}

export async function listJobRuns(database: DataPlane, key: StackKey): Promise<JobRun[]> {
  const rows = await database.kysely
    .selectFrom('stack_jobs')
    .selectAll()
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .orderBy('name')
    .execute();
  return rows.map(jobRunOf);
}

export async function saveJobRun(database: DataPlane, key: StackKey, run: JobRun): Promise<void> {
  const values = {
    execution: run.execution,
    status: run.status,
    exit_code: run.exitCode,
    message: run.message ?? null,
    logs: run.logs,
    started_at: run.startedAt ?? null,
    completed_at: run.completedAt ?? null,
  };
  await database.kysely
    .insertInto('stack_jobs')
    .values({ ...key, name: run.name, ...values })
    .onConflict((conflict) => conflict.columns(['namespace', 'stack', 'name']).doUpdateSet(values))
    .execute();
}

export async function removeJobRun(database: DataPlane, key: StackKey, name: string): Promise<void> {
  await database.kysely
    .deleteFrom('stack_jobs')
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .where('name', '=', name)
    .execute();
}

/** Forgets everything recorded of a stack (it is gone). */
export async function removeStackRecords(database: DataPlane, key: StackKey): Promise<void> {
  await database.kysely
    .deleteFrom('stack_entries')
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .execute();
  await database.kysely
    .deleteFrom('stack_jobs')
    .where('namespace', '=', key.namespace)
    .where('stack', '=', key.stack)
    .execute();
}
