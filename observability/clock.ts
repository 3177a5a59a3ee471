/**
 * Time and timers as every part of the platform sees them (the controller runtime, the scheduler,
 * event delivery, the stacks' steps, the local broker's groups and transactions). Injected so
 * tests advance time instead of sleeping (`test/fixtures/fake-clock.ts`).
 */
export interface Clock {
  now(): Date;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export type TimerHandle = { readonly id: unknown };

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    // Timers must never keep a stopping process alive; shutdown is explicit.
    timer.unref();
    return { id: timer };
  },
  clearTimeout(handle) {
    clearTimeout(handle.id as NodeJS.Timeout);
  },
};
