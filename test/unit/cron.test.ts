import { afterEach, describe, expect, it } from 'vitest';
import { utcSchedule } from '../../controllers/runtime/cron.js';

const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('a cron schedule read in UTC', () => {
  it.each([
    // A day European clocks move forward, and one they move back: UTC's hours do not.
    {
      cron: '0 3 * * *',
      after: '2026-03-29T00:30:00Z',
      runs: ['2026-03-29T03:00:00.000Z', '2026-03-30T03:00:00.000Z'],
    },
    {
      cron: '30 2 * * *',
      after: '2026-10-25T01:59:00Z',
      runs: ['2026-10-25T02:30:00.000Z', '2026-10-26T02:30:00.000Z'],
    },
    {
      cron: '0 0 1 * *',
      after: '2026-12-31T23:59:30Z',
      runs: ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
    },
    {
      cron: '*/5 * * * *',
      after: '2026-11-28T10:01:00Z',
      runs: ['2026-11-28T10:05:00.000Z', '2026-11-28T10:10:00.000Z'],
    },
  ])('$cron after $after, whatever the process time zone', ({ cron, after, runs }) => {
    for (const tz of ['UTC', 'Europe/Stockholm', 'America/St_Johns']) {
      process.env.TZ = tz;
      const schedule = utcSchedule(cron);
      const first = schedule.nextRun(new Date(after))!;
      expect([first.toISOString(), schedule.nextRun(first)!.toISOString()]).toEqual(runs);
    }
  });
});
