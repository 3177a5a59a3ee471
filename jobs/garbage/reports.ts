/** The `gc_reports` rows: written once per garbage collection run, read by the platform's operators. */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { GcReportsTable } from '../../data-plane/schema.js';
import type { GcReportItem } from './types.js';

export interface GcReport {
  id: string;
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
  retentionDays: number;
  cutoff: string;
  /** Collector name → why it did not run. */
  skipped: Record<string, string>;
  items: GcReportItem[];
}

function toRow(report: GcReport): GcReportsTable {
  return {
    id: report.id,
    started_at: report.startedAt,
    finished_at: report.finishedAt,
    dry_run: report.dryRun ? 1 : 0,
    retention_days: report.retentionDays,
    cutoff: report.cutoff,
    skipped: JSON.stringify(report.skipped),
    items: JSON.stringify(report.items),
  };
}

function fromRow(row: GcReportsTable): GcReport {
  return {
    id: row.id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    dryRun: row.dry_run === 1,
    retentionDays: row.retention_days,
    cutoff: row.cutoff,
    skipped: JSON.parse(row.skipped) as Record<string, string>,
    items: JSON.parse(row.items) as GcReportItem[],
  };
}

export async function writeGcReport(database: DataPlane, report: GcReport): Promise<void> {
  await database.kysely.insertInto('gc_reports').values(toRow(report)).execute();
}

/** Newest first. */
export async function listGcReports(
  database: DataPlane,
  window: { limit: number; offset: number },
): Promise<{ reports: GcReport[]; total: number }> {
  const [rows, total] = await Promise.all([
    database.kysely
      .selectFrom('gc_reports')
      .selectAll()
      .orderBy('started_at', 'desc')
      .orderBy('id')
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    database.kysely
      .selectFrom('gc_reports')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirst(),
  ]);
  return { reports: rows.map(fromRow), total: Number(total?.count ?? 0) };
}

export async function findGcReport(database: DataPlane, id: string): Promise<GcReport | undefined> {
  const row = await database.kysely
    .selectFrom('gc_reports')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}
