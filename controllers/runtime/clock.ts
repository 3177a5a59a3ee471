/**
 * Time as the controller runtime and the scheduler see it. Injected so tests advance time
 * instead of sleeping.
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
