import { Cron } from 'croner';

/**
 * A cron schedule read in UTC, paused: its runs are asked for (`nextRun`), never fired by it. UTC
 * is given as an offset of 0 rather than the `UTC` time zone: the same instants, without
 * `Intl.DateTimeFormat`, whose time-zone data alone would keep about 5 MB of the binary in memory.
 */
export function utcSchedule(expression: string): Cron {
  return new Cron(expression, { utcOffset: 0, paused: true });
}
