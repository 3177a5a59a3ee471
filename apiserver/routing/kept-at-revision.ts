import type { ObjectStore } from '../../control-plane/types.js';

/** The most answers kept per store; past it the longest-kept go first. */
const MAX_KEPT = 10_000;

/**
 * Answers derived from store reads, kept while the store's revision stays where it was when they
 * were read: resources are read far more often than they change, and every write moves the
 * revision (another process's by the next turn of the event loop). A store that cannot tell its
 * revision without a request (a cluster's) keeps none. Answers must not depend on the moment
 * they were read, and callers must not change what they are given.
 */
export class KeptAtRevision<V> {
  private readonly byStore = new WeakMap<ObjectStore, { revision: string; answers: Map<string, V> }>();

  /**
   * The answer for `key`: kept, or worked out by `read` and kept when `keep` allows it. The
   * revision is taken before the reads: a write while they run moves it, and the answer is
   * never kept.
   */
  async answer(
    store: ObjectStore,
    key: string,
    read: () => Promise<V>,
    keep: (answer: V) => boolean = () => true,
  ): Promise<V> {
    const revision = store.currentResourceVersion?.();
    if (revision === undefined) return read();
    const kept = this.at(store, revision).get(key);
    if (kept !== undefined) return kept;
    const answer = await read();
    if (keep(answer)) {
      const answers = this.at(store, revision);
      if (answers.size >= MAX_KEPT) answers.delete(answers.keys().next().value!);
      answers.set(key, answer);
    }
    return answer;
  }

  private at(store: ObjectStore, revision: string): Map<string, V> {
    let kept = this.byStore.get(store);
    if (kept?.revision !== revision) {
      kept = { revision, answers: new Map() };
      this.byStore.set(store, kept);
    }
    return kept.answers;
  }
}
