import type { JobDefinition } from './job.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Daily report of billable usage to the payment provider's meters, for the previous UTC day.
 * `meters` counts quantities reported per meter, and stays empty until billing meters exist.
 */
export const meterSync: JobDefinition = {
  name: 'meter-sync',
  schedule: '0 2 * * *',
  description: "Reports the previous UTC day's billable usage to the payment provider's meters",
  async run({ now }) {
    const day = new Date(now().getTime() - DAY_MS).toISOString().slice(0, 10);
    return { day, meters: {} };
  },
};
