/**
 * What a probe or a scrape asks of the system behind it (pings, broker queries), done at most once
 * per window: callers that arrive while a round runs, or within `reuseMs` of its end, share its
 * result. A storm of probes or scrapes then costs the system behind one round per window, and an
 * answer is at most that old.
 */
export class SharedRound<T> {
  private latest: { result: Promise<T>; settledAt?: number } | undefined;

  constructor(
    private readonly round: () => Promise<T>,
    private readonly reuseMs: number,
  ) {}

  result(): Promise<T> {
    const latest = this.latest;
    if (latest && (latest.settledAt === undefined || performance.now() - latest.settledAt < this.reuseMs))
      return latest.result;
    const next: { result: Promise<T>; settledAt?: number } = {
      result: this.round().finally(() => {
        next.settledAt = performance.now();
      }),
    };
    this.latest = next;
    return next.result;
  }
}
