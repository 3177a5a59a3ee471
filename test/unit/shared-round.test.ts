import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SharedRound } from '../../observability/shared-round.js';

/** A round that counts its runs and answers the count once `release` is called. */
function countingRound() {
  let runs = 0;
  let release = () => {};
  const round = () => {
    runs += 1;
    const answer = runs;
    return new Promise<number>((resolve) => (release = () => resolve(answer)));
  };
  return { round, runs: () => runs, release: () => release() };
}

describe('SharedRound', () => {
  it('gives callers during a round its result', async () => {
    const counting = countingRound();
    const shared = new SharedRound(counting.round, 50);
    const first = shared.result();
    const second = shared.result();
    counting.release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(counting.runs()).toBe(1);
  });

  it('gives callers within the window after a round its result, and runs again past it', async () => {
    const counting = countingRound();
    const shared = new SharedRound(counting.round, 50);
    const first = shared.result();
    counting.release();
    await first;
    expect(await shared.result()).toBe(1);
    await delay(70);
    const next = shared.result();
    counting.release();
    expect(await next).toBe(2);
    expect(counting.runs()).toBe(2);
  });

  it('shares a failed round like any other, then tries again', async () => {
    let runs = 0;
    const shared = new SharedRound(async () => {
      runs += 1;
      throw new Error(`attempt ${runs}`);
    }, 20);
    await expect(shared.result()).rejects.toThrow('attempt 1');
    await expect(shared.result()).rejects.toThrow('attempt 1');
    await delay(40);
    await expect(shared.result()).rejects.toThrow('attempt 2');
  });
});
