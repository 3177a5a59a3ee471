/** Time as the broker sees it; injected so group and retention tests advance it instead of sleeping. */
export interface BrokerClock {
  now(): Date;
  setTimeout(callback: () => void, delayMs: number): { readonly id: unknown };
  clearTimeout(handle: { readonly id: unknown }): void;
}

export type TimerHandle = ReturnType<BrokerClock['setTimeout']>;

export const systemClock: BrokerClock = {
  now: () => new Date(),
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    // The broker's timers never keep a stopping process alive; shutdown is explicit.
    timer.unref();
    return { id: timer };
  },
  clearTimeout(handle) {
    clearTimeout(handle.id as NodeJS.Timeout);
  },
};
