/**
 * The rows of usage: the samples the collectors write (`usage_samples`), the hourly aggregates the
 * job upserts from them (`usage_hourly`), its watermark, and the reads the usage API makes.
 * Timestamps are ISO 8601 UTC strings of one format, so they compare as text.
 */
import type { DataPlane } from '../data-plane/data-plane.js';

const STATE_ID = 'usage';
export const HOUR_MS = 3_600_000;

/** The start of the UTC hour `moment` falls in, as stored. */
export function hourOf(moment: Date): string {
  return new Date(Math.floor(moment.getTime() / HOUR_MS) * HOUR_MS).toISOString();
}

export interface AggregationState {
  /** The `recorded_at` of the latest sample counted. */
  watermark: string;
  /** When the run that counted it started. */
  ranAt: string;
}

export async function readAggregationState(database: DataPlane): Promise<AggregationState | undefined> {
  const row = await database.kysely
    .selectFrom('usage_aggregation_state')
    .select(['watermark', 'updated_at'])
    .where('id', '=', STATE_ID)
    .executeTakeFirst();
  return row && { watermark: row.watermark, ranAt: row.updated_at };
}

export async function writeAggregationState(database: DataPlane, state: AggregationState): Promise<void> {
  await database.kysely
    .insertInto('usage_aggregation_state')
    .values({ id: STATE_ID, watermark: state.watermark, updated_at: state.ranAt })
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet({ watermark: state.watermark, updated_at: state.ranAt }),
    )
    .execute();
}

export interface HoursToAggregate {
  /** Samples recorded from this moment on (inclusive: one recorded at the watermark itself may have committed late). */
  recordedSince: string;
  /** The run's start: samples recorded later wait for the next run. */
  until: string;
  /** The running hour; samples of later hours wait until it comes. */
  currentHour: string;
  /** Every hour from this one on, whenever its samples were recorded (a replay). */
  replayFrom?: string | undefined;
}

/** The hours a run recomputes: touched by new samples, still provisional, or replayed. */
export async function hoursToAggregate(database: DataPlane, range: HoursToAggregate): Promise<string[]> {
  const touched = await database.kysely
    .selectFrom('usage_samples')
    .select('hour')
    .distinct()
    .where('recorded_at', '<=', range.until)
    .where('hour', '<=', range.currentHour)
    .where((where) =>
      range.replayFrom === undefined
        ? where('recorded_at', '>=', range.recordedSince)
        : where.or([where('recorded_at', '>=', range.recordedSince), where('hour', '>=', range.replayFrom)]),
    )
    .execute();
  const provisional = await database.kysely
    .selectFrom('usage_hourly')
    .select('hour')
    .distinct()
    .where('provisional', '=', 1)
    .execute();
  return [...new Set([...touched, ...provisional].map((row) => row.hour))].sort();
}

/**
 * Recomputes one hour from its samples recorded up to `until` and upserts its rows: replaying an
 * hour writes the same rows, and a row whose sums did not change keeps its `aggregated_at`.
 * Returns how many samples the hour sums.
 */
export async function aggregateHour(
  database: DataPlane,
  hour: string,
  run: { until: string; provisional: boolean; aggregatedAt: string },
): Promise<number> {
  const sums = await database.kysely
    .selectFrom('usage_samples')
    .select((select) => [
      'organization',
      'meter',
      'resource_id',
      select.fn.max('resource_type').as('resource_type'),
      select.fn.max('resource_name').as('resource_name'),
      select.fn.max('unit').as('unit'),
      select.fn.max('plan').as('plan'),
      select.fn.sum<number>('quantity').as('quantity'),
      select.fn.countAll<number>().as('samples'),
    ])
    .where('hour', '=', hour)
    .where('recorded_at', '<=', run.until)
    .groupBy(['organization', 'meter', 'resource_id'])
    .execute();
  if (sums.length === 0) return 0;
  const provisional = run.provisional ? 1 : 0;
  await database.kysely.transaction().execute(async (transaction) => {
    for (const sum of sums) {
      const quantity = Number(sum.quantity);
      const sampleCount = Number(sum.samples);
      await transaction
        .insertInto('usage_hourly')
        .values({
          organization: sum.organization,
          meter: sum.meter,
          resource_id: sum.resource_id,
          hour,
          resource_type: sum.resource_type,
          resource_name: sum.resource_name,
          unit: sum.unit,
          plan: sum.plan,
          quantity,
          samples: sampleCount,
          provisional,
          aggregated_at: run.aggregatedAt,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['organization', 'meter', 'resource_id', 'hour'])
            .doUpdateSet({
              resource_type: sum.resource_type,
              resource_name: sum.resource_name,
              unit: sum.unit,
              plan: sum.plan,
              quantity,
              samples: sampleCount,
              provisional,
              aggregated_at: run.aggregatedAt,
            })
            .where((where) =>
              where.or([
                where('usage_hourly.quantity', '!=', quantity),
                where('usage_hourly.samples', '!=', sampleCount),
                where('usage_hourly.provisional', '!=', provisional),
                where('usage_hourly.resource_name', '!=', sum.resource_name),
              ]),
            ),
        )
        .execute();
    }
  });
  return sums.reduce((total, sum) => total + Number(sum.samples), 0);
}

/**
 * Samples newly recorded (after the watermark, up to `until`) for an hour that had already ended
 * when the previous run started: counted now, and late.
 */
export async function countLateSamples(
  database: DataPlane,
  range: { after: string; until: string; previousRunAt: string },
): Promise<number> {
  const lastEndedHour = new Date(Date.parse(hourOf(new Date(range.previousRunAt))) - HOUR_MS).toISOString();
  const row = await database.kysely
    .selectFrom('usage_samples')
    .select((select) => select.fn.countAll<number>().as('late'))
    .where('recorded_at', '>', range.after)
    .where('recorded_at', '<=', range.until)
    .where('hour', '<=', lastEndedHour)
    .executeTakeFirstOrThrow();
  return Number(row.late);
}

/** The `recorded_at` of the latest sample recorded up to `until`. */
export async function latestRecordedAt(database: DataPlane, until: string): Promise<string | undefined> {
  const row = await database.kysely
    .selectFrom('usage_samples')
    .select((select) => select.fn.max('recorded_at').as('latest'))
    .where('recorded_at', '<=', until)
    .executeTakeFirst();
  return row?.latest ?? undefined;
}

/** One meter of one resource over a period, summed from its hourly rows. */
export interface ResourceUsage {
  resourceType: string;
  resourceId: string;
  resourceName: string;
  meter: string;
  unit: string;
  plan: string | null;
  quantity: number;
}

export interface PeriodUsage {
  resources: ResourceUsage[];
  /** When the latest of its rows was aggregated; null when there are none. */
  updatedAt: string | null;
}

/** An organization's usage over the hours from `start` (inclusive) to `end` (exclusive). */
export async function usageOfPeriod(
  database: DataPlane,
  organization: string,
  period: { start: string; end: string },
): Promise<PeriodUsage> {
  const rows = await database.kysely
    .selectFrom('usage_hourly')
    .select((select) => [
      'resource_id',
      'meter',
      select.fn.max('resource_type').as('resource_type'),
      select.fn.max('resource_name').as('resource_name'),
      select.fn.max('unit').as('unit'),
      select.fn.max('plan').as('plan'),
      select.fn.sum<number>('quantity').as('quantity'),
      select.fn.max('aggregated_at').as('aggregated_at'),
    ])
    .where('organization', '=', organization)
    .where('hour', '>=', period.start)
    .where('hour', '<', period.end)
    .groupBy(['resource_id', 'meter'])
    .orderBy('resource_id')
    .orderBy('meter')
    .execute();
  const updatedAt = rows.reduce<string | null>(
    (latest, row) => (latest === null || row.aggregated_at > latest ? row.aggregated_at : latest),
    null,
  );
  return {
    updatedAt,
    resources: rows.map((row) => ({
      resourceType: row.resource_type,
      resourceId: row.resource_id,
      resourceName: row.resource_name,
      meter: row.meter,
      unit: row.unit,
      plan: row.plan,
      quantity: Number(row.quantity),
    })),
  };
}
