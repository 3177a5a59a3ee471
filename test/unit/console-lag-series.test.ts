/** The console's consumer-lag chart: the samples it keeps and the line it draws from them. */
import { describe, expect, it } from 'vitest';
import { lagPoints, withSample } from '../../console/src/lag-series.js';

describe('withSample', () => {
  it('appends, dropping the oldest beyond the limit', () => {
    let samples = withSample([], { at: 1, totalLag: 5 }, 2);
    samples = withSample(samples, { at: 2, totalLag: 3 }, 2);
    samples = withSample(samples, { at: 3, totalLag: 0 }, 2);
    expect(samples).toEqual([
      { at: 2, totalLag: 3 },
      { at: 3, totalLag: 0 },
    ]);
  });
});

describe('lagPoints', () => {
  it('spreads the samples over the width and scales the lag to the largest seen', () => {
    const points = lagPoints(
      [
        { at: 1000, totalLag: 10 },
        { at: 2000, totalLag: 5 },
        { at: 3000, totalLag: 0 },
      ],
      200,
      100,
    );
    expect(points).toBe('0,0 100,50 200,100');
  });

  it('draws zero lag along the bottom, and one sample as a flat line across', () => {
    expect(
      lagPoints(
        [
          { at: 0, totalLag: 0 },
          { at: 10, totalLag: 0 },
        ],
        50,
        20,
      ),
    ).toBe('0,20 50,20');
    expect(lagPoints([{ at: 0, totalLag: 7 }], 50, 20)).toBe('0,0 50,0');
    expect(lagPoints([], 50, 20)).toBe('');
  });
});
