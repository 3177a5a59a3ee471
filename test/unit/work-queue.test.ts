import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../controllers/runtime/work-queue.js';
import { FakeClock } from '../fixtures/fake-clock.js';

const backoff = { baseDelayMs: 100, maxDelayMs: 1000 };

describe('WorkQueue', () => {
  it('never holds a key twice', async () => {
    const queue = new WorkQueue(backoff, new FakeClock());
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.depth).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('does not hand a key being processed to a second worker, and re-queues it when done', async () => {
    const queue = new WorkQueue(backoff, new FakeClock());
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    expect(queue.depth).toBe(0);
    let second: string | undefined;
    void queue.get().then((key) => (second = key));
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('hands a key to a waiting worker at once', async () => {
    const queue = new WorkQueue(backoff, new FakeClock());
    const waiting = queue.get();
    queue.add('x');
    expect(await waiting).toBe('x');
  });

  it.each([
    { failures: 1, delay: 100 },
    { failures: 2, delay: 200 },
    { failures: 3, delay: 400 },
    { failures: 4, delay: 800 },
    { failures: 5, delay: 1000 },
    { failures: 9, delay: 1000 },
  ])('backs off exponentially with a cap: failure $failures waits $delay ms', ({ failures, delay }) => {
    const queue = new WorkQueue(backoff, new FakeClock());
    let last = 0;
    for (let i = 0; i < failures; i++) last = queue.nextBackoff('k');
    expect(last).toBe(delay);
  });

  it('starts the backoff over once a key is forgotten', () => {
    const queue = new WorkQueue(backoff, new FakeClock());
    queue.nextBackoff('k');
    queue.nextBackoff('k');
    queue.forget('k');
    expect(queue.nextBackoff('k')).toBe(100);
  });

  it('adds a delayed key when its time comes, keeping the earlier of two delays', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(backoff, clock);
    queue.addAfter('k', 500);
    queue.addAfter('k', 900);
    expect(clock.pendingDelays()).toEqual([500]);
    await clock.advance(499);
    expect(queue.depth).toBe(0);
    await clock.advance(1);
    expect(queue.depth).toBe(1);
  });

  it('reports its depth as it changes', async () => {
    const depths: number[] = [];
    const queue = new WorkQueue(backoff, new FakeClock(), (depth) => depths.push(depth));
    queue.add('a');
    queue.add('b');
    await queue.get();
    expect(depths).toEqual([1, 2, 1]);
  });

  it('releases waiting workers and drops pending delays on shutdown', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(backoff, clock);
    queue.addAfter('later', 100);
    const waiting = queue.get();
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    expect(clock.pendingDelays()).toEqual([]);
    queue.add('after-shutdown');
    expect(queue.depth).toBe(0);
  });
});
