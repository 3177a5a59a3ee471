import type { DataPlane } from '../data-plane/data-plane.js';
import type { JobDefinition } from './job.js';
import {
  aggregateHour,
  countLateSamples,
  hourOf,
  hoursToAggregate,
  latestRecordedAt,
  readAggregationState,
  writeAggregationState,
} from './usage-records.js';

/** What a run did: recorded in `job_runs`. */
export interface UsageAggregationSummary {
  /** Hours recomputed, the running one included. */
  hours: number;
  /** Samples those hours sum. */
  samples: number;
  /** Samples that arrived after their hour had already been aggregated as complete. */
  late_samples: number;
  /** From the first hour recomputed to the run's start; null when nothing was. */
  window: { start: string; end: string } | null;
}

/**
 * Sums usage samples into hourly records, up to the run's start. It recomputes every hour touched
 * by samples recorded since its watermark (so late samples count), every hour still provisional,
 * and the running hour, which it marks provisional for the next run to replace. An hour is always
 * recomputed from all its samples, never added to, so a re-run or a replay (`replayFrom`: every
 * hour from then on) writes the same rows.
 */
export async function aggregateUsage(
  database: DataPlane,
  options: { now: Date; replayFrom?: Date | undefined },
): Promise<UsageAggregationSummary> {
  const until = options.now.toISOString();
  const currentHour = hourOf(options.now);
  const state = await readAggregationState(database);
  const hours = await hoursToAggregate(database, {
    recordedSince: state?.watermark ?? '',
    until,
    currentHour,
    replayFrom: options.replayFrom && hourOf(options.replayFrom),
  });
  let samples = 0;
  for (const hour of hours) {
    samples += await aggregateHour(database, hour, {
      until,
      provisional: hour === currentHour,
      aggregatedAt: until,
    });
  }
  const lateSamples = state
    ? await countLateSamples(database, { after: state.watermark, until, previousRunAt: state.ranAt })
    : 0;
  const latest = await latestRecordedAt(database, until);
  if (latest !== undefined) {
    const watermark = state && state.watermark > latest ? state.watermark : latest;
    await writeAggregationState(database, { watermark, ranAt: until });
  }
  return {
    hours: hours.length,
    samples,
    late_samples: lateSamples,
    window: hours.length === 0 ? null : { start: hours[0]!, end: until },
  };
}

/** The hourly job (`0 * * * *`); `cloudplane job usage-aggregation` runs it at once. */
export const usageAggregation: JobDefinition = {
  name: 'usage-aggregation',
  schedule: '0 * * * *',
  description: 'Sums usage samples into hourly usage records, the running hour provisionally',
  async run({ database, now, logger }) {
    const summary = await aggregateUsage(database, { now: now() });
    if (summary.late_samples > 0) {
      logger.info({ lateSamples: summary.late_samples }, 'late usage samples re-aggregated');
    }
    return { ...summary };
  },
};
