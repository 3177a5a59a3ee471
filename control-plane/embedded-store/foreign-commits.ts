import { setImmediate } from 'node:timers';
import type Database from 'better-sqlite3';

/**
 * Whether another connection committed to a SQLite file since the last look, for caches of what
 * this connection read. SQLite's answer (`PRAGMA data_version`, which moves with every commit of
 * another connection) costs as much as a small read, so it is asked at most once per turn of the
 * event loop: whatever another connection committed before the turn began is noticed.
 */
export class ForeignCommits {
  private readonly dataVersion: Database.Statement<[], number>;
  private seenVersion: number | undefined;
  private askedThisTurn = false;

  constructor(connection: Database.Database) {
    this.dataVersion = connection.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** True when another connection committed since the last time this answered true (and the first time). */
  happened(): boolean {
    if (this.askedThisTurn) return false;
    this.askedThisTurn = true;
    setImmediate(() => (this.askedThisTurn = false));
    const version = this.dataVersion.get();
    if (version === this.seenVersion) return false;
    this.seenVersion = version;
    return true;
  }
}
