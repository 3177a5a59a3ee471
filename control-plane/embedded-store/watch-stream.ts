import type { Logger } from '../../observability/logger.js';
import type { LabelMatcher } from '../label-selector.js';
import { StoreError, type KubeObject, type Watch, type WatchEvent, type WatchEventType } from '../types.js';

/** One committed change of one object, as the store records it in its history. */
export interface ChangeRecord {
  revision: number;
  /** `''` for cluster-scoped kinds. */
  namespace: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object as of this revision (for DELETED: its last state), serialized. */
  body: string;
  labels: Readonly<Record<string, string>> | undefined;
  /** The labels before a MODIFIED that changed them; absent when they did not change. */
  previousLabels?: Readonly<Record<string, string>> | undefined;
}

/** What a watch reads from its store: the kept history and the current revision. */
export interface WatchSource {
  /**
   * Changes after `after`, up to and including `until`, oldest first, at most `limit`. Throws
   * `Expired` when the history no longer reaches back to `after`.
   */
  history(after: number, until: number, limit: number): ChangeRecord[];
  revision(): number;
  /** Called once when the watch ends, so the store stops offering it changes. */
  release(): void;
}

export interface WatchStreamOptions {
  source: WatchSource;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  matches: LabelMatcher;
  /** Objects to announce first as ADDED (a watch from revision "0"). */
  snapshot: string[];
  /** Replay history after this revision, up to `startRevision`. */
  replayAfter: number;
  /** Changes at or below this revision are replayed from history (or were in the snapshot); later ones come live. */
  startRevision: number;
  bookmarkIntervalMs: number | undefined;
  bufferLimit: number;
  logger: Logger | undefined;
}

interface Pending {
  type: WatchEventType;
  body: string;
}

const HISTORY_PAGE = 500;

/**
 * One watch: snapshot or replayed history first (read from the history table page by page, so
 * a long replay costs no memory), then live changes the store offers after each commit.
 *
 * Writers never wait for a watch: live changes queue here. A consumer that falls more than
 * `bufferLimit` changes behind is cut off with `Expired`, the signal informers already handle by
 * relisting, instead of letting the queue grow without bound.
 */
export class WatchStream<T extends KubeObject = KubeObject> implements Watch<T> {
  private readonly ready: Pending[] = [];
  private readonly live: Pending[] = [];
  private replayCursor: number;
  private failure: StoreError | undefined;
  private finished = false;
  private wake: (() => void) | undefined;
  private idle = true;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: WatchStreamOptions) {
    this.replayCursor = options.replayAfter;
    for (const body of options.snapshot) this.ready.push({ type: 'ADDED', body });
    if (options.bookmarkIntervalMs !== undefined) {
      this.timer = setInterval(() => this.bookmarkIfIdle(), options.bookmarkIntervalMs);
      this.timer.unref();
    }
  }

  /** A watch that fails with `error` on its first step: how bad requests surface from `watch()`. */
  static failed<T extends KubeObject>(error: StoreError): Watch<T> {
    let thrown = false;
    return {
      stop() {
        thrown = true;
      },
      [Symbol.asyncIterator]() {
        return {
          next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
            if (thrown) return { done: true, value: undefined };
            thrown = true;
            throw error;
          },
        };
      },
    };
  }

  /** Takes a change the store just committed. Never blocks and never throws: the writer is waiting. */
  offer(change: ChangeRecord): void {
    if (this.finished || change.revision <= this.options.startRevision) return;
    const type = this.visibleAs(change);
    if (type === undefined) return;
    this.live.push({ type, body: change.body });
    if (this.live.length > this.options.bufferLimit) {
      this.options.logger?.warn(
        { kind: this.options.kind, buffered: this.live.length },
        'watch consumer fell behind; ending the watch so it relists',
      );
      this.fail(new StoreError('Expired', 'the watch fell too far behind; relist and watch again'));
      return;
    }
    this.notify();
  }

  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.ready.length = 0;
    this.live.length = 0;
    this.shutdown();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  private async next(): Promise<IteratorResult<WatchEvent<T>>> {
    for (;;) {
      if (this.failure) {
        const failure = this.failure;
        this.failure = undefined;
        this.finished = true;
        throw failure;
      }
      if (this.finished) return { done: true, value: undefined };
      const pending = this.ready.shift() ?? (this.replaying() ? this.replayPage() : this.live.shift());
      if (pending) {
        this.idle = false;
        return { done: false, value: { type: pending.type, object: JSON.parse(pending.body) as T } };
      }
      if (!this.replaying()) await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private replaying(): boolean {
    return this.replayCursor < this.options.startRevision;
  }

  private replayPage(): Pending | undefined {
    const { source, startRevision } = this.options;
    let changes: ChangeRecord[];
    try {
      changes = source.history(this.replayCursor, startRevision, HISTORY_PAGE);
    } catch (error) {
      this.fail(error instanceof StoreError ? error : new StoreError('InternalError', String(error)));
      return undefined;
    }
    this.replayCursor =
      changes.length < HISTORY_PAGE ? startRevision : (changes.at(-1)?.revision ?? startRevision);
    for (const change of changes) {
      const type = this.visibleAs(change);
      if (type !== undefined) this.ready.push({ type, body: change.body });
    }
    return this.ready.shift();
  }

  /**
   * How this watch sees a change: filtered by namespace and label selector, where an object that
   * starts matching arrives as ADDED and one that stops matching leaves as DELETED.
   */
  private visibleAs(change: ChangeRecord): 'ADDED' | 'MODIFIED' | 'DELETED' | undefined {
    const { namespace, matches } = this.options;
    if (namespace !== undefined && change.namespace !== namespace) return undefined;
    const now = matches(change.labels);
    if (change.type !== 'MODIFIED') return now ? change.type : undefined;
    const before = 'previousLabels' in change ? matches(change.previousLabels) : now;
    if (now && before) return 'MODIFIED';
    if (now) return 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  private bookmarkIfIdle(): void {
    if (this.finished || this.replaying() || this.ready.length > 0 || this.live.length > 0) return;
    if (!this.idle) {
      this.idle = true;
      return;
    }
    const { apiVersion, kind, source } = this.options;
    const resourceVersion = String(source.revision());
    this.live.push({
      type: 'BOOKMARK',
      body: JSON.stringify({ apiVersion, kind, metadata: { resourceVersion } }),
    });
    this.notify();
  }

  private fail(error: StoreError): void {
    if (this.finished) return;
    this.failure = error;
    this.ready.length = 0;
    this.live.length = 0;
    this.shutdown();
  }

  private shutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.options.source.release();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
