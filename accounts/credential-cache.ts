import { setImmediate } from 'node:timers';
import type { DataPlane } from '../data-plane/data-plane.js';
import { preparedQuery } from '../data-plane/prepared-query.js';

/** What a resolved credential stays good for without asking the data plane again. */
export interface ResolvedCredential<T> {
  value: T;
  /** ms since the epoch: the token's, session's or key's expiry, whichever comes first. */
  validUntil: number;
}

/** The most credentials kept; past it the longest-kept go first. */
const MAX_ENTRIES = 10_000;

const readEpoch = preparedQuery((db) =>
  db.selectFrom('credential_epoch').select('epoch').where('id', '=', 1),
);

/**
 * The epoch read every request that arrives in this turn of the event loop waits for, per data
 * plane: sent once they have all arrived (at the end of the turn), it sees every commit any of
 * them must see, so one statement answers them all. A read already sent is never joined: it may
 * have started before a revocation that a later request must see.
 */
const epochReadsOfThisTurn = new WeakMap<DataPlane, Promise<string>>();

/** The credential epoch as a read sent after this call answers it (shared by the turn's requests). */
function readEpochAfterNow(database: DataPlane): Promise<string> {
  let read = epochReadsOfThisTurn.get(database);
  if (read === undefined) {
    read = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      epochReadsOfThisTurn.delete(database);
      const rows = await readEpoch(database.kysely);
      return String(rows[0]?.epoch);
    });
    epochReadsOfThisTurn.set(database, read);
  }
  return read;
}

/** The highest credential epoch this process has read, per data plane. */
const highestEpochRead = new WeakMap<DataPlane, bigint>();

/**
 * The highest credential epoch this process has read from `database`; undefined before the first
 * read. The epoch moves in the transaction of every change to a credential or to what a profile
 * shows (migrations 0022 and 0023), and never moves back: whatever is read from the data plane
 * after this call is at least as new as the epoch it answers, and a request that has just read the
 * epoch finds that epoch here, or a later one.
 */
export function credentialEpochRead(database: DataPlane): bigint | undefined {
  return highestEpochRead.get(database);
}

/**
 * Credentials this replica resolved, kept until they expire or the data plane's credential epoch
 * moves (see migration 0022): every request reads the epoch, one indexed single-row read (one for
 * all the requests of a turn of the event loop) instead of verifying a signature and joining
 * sessions, users and memberships, unless the data plane's commit mark says nothing was committed
 * since the last read (SQLite). The epoch moves in the transaction that revokes, so no TTL lets a
 * dead credential live: the first request after the commit, on any replica, sees the new epoch and
 * resolves afresh.
 */
export class CredentialCache<T> {
  private readonly entries = new Map<string, ResolvedCredential<T>>();
  private epoch: string | undefined;
  /** The data plane's commit mark when `epoch` was read; while it stays, so does the epoch. */
  private epochMark: number | undefined;

  constructor(private readonly database: DataPlane) {}

  async resolve(credential: string, now: Date, lookup: () => Promise<ResolvedCredential<T>>): Promise<T> {
    const epoch = await this.currentEpoch();
    const kept = this.entries.get(credential);
    if (kept && kept.validUntil > now.getTime()) return kept.value;
    if (kept) this.entries.delete(credential);
    const resolved = await lookup();
    // A revocation committed while looking up moved the epoch: another request has cleared the
    // entries since, and this resolution must not outlive that.
    if (this.epoch === epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(credential, resolved);
    }
    return resolved.value;
  }

  private async currentEpoch(): Promise<string> {
    // Taken before the read: a commit during the read moves it, and the next request reads again.
    const mark = this.database.commitMark();
    if (mark !== undefined && mark === this.epochMark && this.epoch !== undefined) return this.epoch;
    const epoch = await readEpochAfterNow(this.database);
    // Reads answer out of order on PostgreSQL's pool: the highest is kept, not the last.
    const highest = highestEpochRead.get(this.database);
    if (highest === undefined || BigInt(epoch) > highest) highestEpochRead.set(this.database, BigInt(epoch));
    // The epoch and its mark change together, in the same turn: a request must never pair the
    // new mark with the old epoch. SQLite answers reads in the order they were asked.
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.epoch = epoch;
    }
    this.epochMark = mark;
    return epoch;
  }
}
