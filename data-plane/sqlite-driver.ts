import { setImmediate } from 'node:timers';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteDriver,
  type DatabaseConnection,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';
import type { ForeignCommits, WalSync } from '../control-plane/embedded-store/index.js';

/**
 * Hands the single connection out in arrival order. Kysely's own mutex wakes every waiter on
 * each release (one promise shared by all), which under load costs more than the queries.
 */
class ConnectionQueue {
  /** Whether a holder has the connection (the waiters queue behind it). */
  held = false;
  private readonly waiters: Array<() => void> = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  unlock(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** Transactions released into one open SQLite transaction, committed and flushed together. */
class CommitGroup {
  commitScheduled = false;
  /** Settles once the group's commit is on disk, or with the error that prevented it. */
  readonly durable: Promise<void>;
  settle!: (error?: Error) => void;

  constructor() {
    this.durable = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
    // Every member awaits it; a group whose only member never reached it must not go unhandled.
    this.durable.catch(() => undefined);
  }
}

/** SQLite rolled back the whole open transaction (an I/O error, a full disk): every member's work is gone. */
export class GroupedTransactionLostError extends Error {
  constructor() {
    super(
      'the data-plane transaction was rolled back by SQLite before it could commit; nothing of it was kept',
    );
    this.name = 'GroupedTransactionLostError';
  }
}

/**
 * A number that moves whenever the file may have changed: with every commit of this connection,
 * and when another connection's commit is noticed (`ForeignCommits`). A cache of data-plane reads
 * that took the mark before reading may keep its answer while the mark stays where it was.
 */
export class CommitMark {
  private commits = 0;

  constructor(private readonly foreignCommits: ForeignCommits) {}

  committed(): void {
    this.commits++;
  }

  current(): number {
    if (this.foreignCommits.happened()) this.commits++;
    return this.commits;
  }
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** The name of the savepoint a member runs in; members run one at a time, so one name serves. */
const MEMBER = 'grouped_member';

/**
 * Kysely's SQLite driver with transactions committed in groups. Every commit of its own wrote the
 * transaction's pages (a vault request's audit row touches three B-trees) to the WAL: most of a
 * short transaction's cost. Here a transaction begins as a savepoint inside one open
 * `begin immediate` transaction and its commit releases the savepoint into it; the open
 * transaction commits once the transactions already waiting for the connection have run, so one
 * commit and one WAL flush (`WalSync`) cover them all. A member's rollback undoes only its own
 * savepoint. Nothing is answered early: a member, or any statement that ran inside the open
 * transaction (it may have read a member's writes), returns only once the group's commit is
 * durable, and fails with the commit when it fails.
 *
 * `begin immediate` rather than Kysely's deferred `begin`: a deferred transaction that reads and
 * then writes fails with SQLITE_BUSY, which busy_timeout cannot retry, when another connection to
 * the file (another process's) wrote in between; taking the write lock up front makes competing
 * writers wait their turn instead.
 */
export class GroupCommitSqliteDriver extends SqliteDriver {
  private readonly queue = new ConnectionQueue();
  /** The open transaction members are released into, until its commit. */
  private group: CommitGroup | undefined;
  /** The group the current holder ran a statement in: it answers once that group is durable. */
  private heldInGroup: CommitGroup | undefined;
  /** The current holder committed a write outside any transaction. */
  private autocommitted = false;

  constructor(
    config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
    private readonly statement: (sql: string) => SQLite.Statement,
    private readonly walSync: WalSync,
    private readonly mark: CommitMark,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.queue.lock();
    // Never waits: the queue admits one holder at a time.
    const inner = await super.acquireConnection();
    if (this.group && !this.connection.inTransaction) this.loseGroup(this.group);
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (this.group) this.heldInGroup = this.group;
        const result = await inner.executeQuery<R>(query);
        if (!this.group && !this.connection.inTransaction && !this.statement(query.sql).readonly) {
          this.autocommitted = true;
          this.mark.committed();
        }
        return result;
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
  }

  /**
   * The rows of a read-only statement, run at once when the connection is free: nothing holds it,
   * nothing waits for it, and no transaction or group is open, which is how the queue would run it
   * (a read holds no commit to wait for). Undefined otherwise, or for a statement that writes or
   * answers no rows: it then takes Kysely's way through the queue. Kysely's way costs more than a
   * small indexed read: a dozen promises to acquire, run and release the connection.
   */
  readNow(sql: string, parameters: readonly unknown[]): unknown[] | undefined {
    if (this.queue.held || this.group || this.connection.inTransaction) return undefined;
    const statement = this.statement(sql);
    if (!statement.reader || !statement.readonly) return undefined;
    return statement.all(parameters);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.group) {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      this.group = new CommitGroup();
    }
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${MEMBER}`));
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.connection.inTransaction) throw new GroupedTransactionLostError();
    await connection.executeQuery(CompiledQuery.raw(`release ${MEMBER}`));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Without an open transaction SQLite has already rolled everything back; the group fails at its commit.
    if (!this.connection.inTransaction) return;
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${MEMBER}`));
    await connection.executeQuery(CompiledQuery.raw(`release ${MEMBER}`));
  }

  override async releaseConnection(): Promise<void> {
    const group = this.heldInGroup;
    const autocommitted = this.autocommitted;
    this.heldInGroup = undefined;
    this.autocommitted = false;
    await super.releaseConnection();
    this.queue.unlock();
    if (group) {
      this.scheduleCommit(group);
      await group.durable;
    } else if (autocommitted) {
      await new Promise<void>((resolve, reject) =>
        this.walSync.afterCommit((error) => (error ? reject(error) : resolve())),
      );
    }
  }

  override async destroy(): Promise<void> {
    // What already waits for the connection runs, and the group it leaves open commits, first.
    await this.queue.lock();
    this.queue.unlock();
    await this.group?.durable.catch(() => undefined);
    await this.walSync.drain();
    await super.destroy();
    this.walSync.close();
  }

  private scheduleCommit(group: CommitGroup): void {
    if (group.commitScheduled) return;
    group.commitScheduled = true;
    // After this turn: the transactions that queue for the connection meanwhile join the group.
    setImmediate(() => void this.commit(group));
  }

  /** Commits the group once every holder queued before this has been released into it. */
  private async commit(group: CommitGroup): Promise<void> {
    await this.queue.lock();
    const connection = await super.acquireConnection();
    let failure: Error | undefined;
    try {
      // A group already lost (see acquireConnection) was settled then.
      if (this.group === group) {
        this.group = undefined;
        if (!this.connection.inTransaction) failure = new GroupedTransactionLostError();
        else {
          await connection.executeQuery(CompiledQuery.raw('commit'));
          this.mark.committed();
        }
      }
    } catch (error) {
      failure = asError(error);
      try {
        if (this.connection.inTransaction) this.connection.exec('rollback');
      } catch {
        // The commit's own error is the one to report.
      }
    } finally {
      await super.releaseConnection();
      this.queue.unlock();
    }
    if (failure) group.settle(failure);
    else this.walSync.afterCommit((error) => group.settle(error));
  }

  private loseGroup(group: CommitGroup): void {
    this.group = undefined;
    group.settle(new GroupedTransactionLostError());
  }
}
