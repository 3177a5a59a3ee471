import { describe, expect, it } from 'vitest';
import { windowReading } from '../../apiserver/middleware/rate-limit.js';

describe('windowReading', () => {
  it.each([
    [
      'the first request of a window',
      1,
      60_000,
      true,
      { allowed: true, remaining: 4, msBeforeReset: 60_000 },
    ],
    [
      'the last request the budget allows',
      5,
      1_200,
      true,
      { allowed: true, remaining: 0, msBeforeReset: 1_200 },
    ],
    ['one request beyond the budget', 6, 1_200, true, { allowed: false, remaining: 0, msBeforeReset: 1_200 }],
    [
      'a probe beyond the budget: never refused',
      9,
      1_200,
      false,
      { allowed: true, remaining: 0, msBeforeReset: 1_200 },
    ],
    ['a probe of a window that ended', 9, 0, false, { allowed: true, remaining: 5, msBeforeReset: 60_000 }],
    [
      'a probe of a caller never counted',
      0,
      -5,
      false,
      { allowed: true, remaining: 5, msBeforeReset: 60_000 },
    ],
  ])('%s', (_case, used, msLeft, counted, reading) => {
    expect(windowReading(5, 60_000, used, msLeft, counted)).toEqual(reading);
  });
});
