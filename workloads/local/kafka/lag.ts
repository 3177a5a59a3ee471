import type { LagStatus, PartitionLag } from '../../runtime.js';

/**
 * Consumer lag with a Burrow-style verdict, from a window of the group's recent commits kept in
 * memory (it starts empty after a restart, so the verdict needs a few commits to say more than OK).
 *
 * Per partition, first rule that holds:
 * - OK    the lag is 0 (caught up).
 * - ERR   the committed offset is outside the log (below its start: records the group never read
 *         were dropped by retention) or the last commit moved the offset backwards (a rewind).
 * - STOP  the lag is above 0 and nothing was committed for `stopAfterMs`.
 * - STALL the lag is above 0 and the window holds at least two commits, all of the same offset.
 * - WARN  the window holds at least two commits and the lag seen at each commit never fell and
 *         rose from the first to the last (the consumer is falling behind).
 * - OK    otherwise.
 * The group's status is its worst partition's, in the order OK < WARN < STALL < STOP < ERR.
 */

export interface CommitSample {
  offset: number;
  /** The partition's lag when the commit arrived. */
  lag: number;
  time: number;
}

export const COMMIT_WINDOW = 10;
export const DEFAULT_STOP_AFTER_MS = 5 * 60 * 1000;

const SEVERITY: Record<LagStatus, number> = { OK: 0, WARN: 1, STALL: 2, STOP: 3, ERR: 4 };

export function worstStatus(statuses: readonly LagStatus[]): LagStatus {
  return statuses.reduce<LagStatus>(
    (worst, status) => (SEVERITY[status] > SEVERITY[worst] ? status : worst),
    'OK',
  );
}

export interface PartitionFacts {
  committedOffset: number;
  logStartOffset: number;
  logEndOffset: number;
  window: readonly CommitSample[];
  now: number;
  stopAfterMs: number;
}

export function partitionStatus(facts: PartitionFacts): LagStatus {
  const lag = Math.max(0, facts.logEndOffset - facts.committedOffset);
  if (lag === 0 && facts.committedOffset <= facts.logEndOffset) return 'OK';
  const window = facts.window;
  const last = window[window.length - 1];
  const previous = window[window.length - 2];
  if (facts.committedOffset < facts.logStartOffset || facts.committedOffset > facts.logEndOffset)
    return 'ERR';
  if (last && previous && last.offset < previous.offset) return 'ERR';
  if (!last || facts.now - last.time > facts.stopAfterMs) return last ? 'STOP' : 'OK';
  if (window.length >= 2 && window.every((sample) => sample.offset === last.offset)) return 'STALL';
  const first = window[0]!;
  if (
    window.length >= 2 &&
    last.lag > first.lag &&
    window.every((sample, i) => i === 0 || sample.lag >= window[i - 1]!.lag)
  ) {
    return 'WARN';
  }
  return 'OK';
}

/** The recent commits of every group, per partition. */
export class CommitWindows {
  private readonly windows = new Map<string, CommitSample[]>();

  private key(groupId: string, topic: string, partition: number): string {
    return `${groupId}\u0000${topic}\u0000${partition}`;
  }

  record(groupId: string, topic: string, partition: number, sample: CommitSample): void {
    const key = this.key(groupId, topic, partition);
    const window = this.windows.get(key) ?? [];
    window.push(sample);
    if (window.length > COMMIT_WINDOW) window.shift();
    this.windows.set(key, window);
  }

  window(groupId: string, topic: string, partition: number): readonly CommitSample[] {
    return this.windows.get(this.key(groupId, topic, partition)) ?? [];
  }

  forget(groupId: string): void {
    for (const key of this.windows.keys()) if (key.startsWith(`${groupId}\u0000`)) this.windows.delete(key);
  }
}

export function partitionLag(
  topic: string,
  partition: number,
  facts: PartitionFacts,
  firstUnconsumedAppendTime: number | undefined,
): PartitionLag {
  const lag = Math.max(0, facts.logEndOffset - facts.committedOffset);
  const timeLagMs =
    lag > 0 && firstUnconsumedAppendTime !== undefined
      ? Math.max(0, facts.now - firstUnconsumedAppendTime)
      : 0;
  return {
    topic,
    partition,
    committedOffset: facts.committedOffset,
    logEndOffset: facts.logEndOffset,
    lag,
    timeLagSeconds: Math.round(timeLagMs / 1000),
    status: partitionStatus(facts),
  };
}
