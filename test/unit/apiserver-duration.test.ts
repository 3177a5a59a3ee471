import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../apiserver/duration.js';

describe('humanDuration', () => {
  it.each([
    [0, '0s'],
    [9, '9s'],
    [59.9, '59s'],
    [60, '1m0s'],
    [245, '4m5s'],
    [3600, '1h0m0s'],
    [11525, '3h12m5s'],
    [90061, '25h1m1s'],
    [-3, '0s'],
  ])('writes %s seconds as %s', (seconds, text) => {
    expect(humanDuration(seconds)).toBe(text);
  });
});
