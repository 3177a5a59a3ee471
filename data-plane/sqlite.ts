import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { WalSync } from '../control-plane/embedded-store/index.js';
import {
  CompiledQuery,
  type QueryResult,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** Distinct SQL texts kept prepared; the data plane issues a few hundred at most. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it, with prepared statements kept for reuse: Kysely prepares
 * every query afresh, a measurable share of each request. Kysely's driver runs one query at a
 * time on its single connection, so a cached statement is never in use twice at once.
 */
function withStatementCache(connection: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string): SQLite.Statement {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = connection.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

/**
 * Kysely begins SQLite transactions deferred. A deferred transaction that reads and then writes fails
 * with SQLITE_BUSY, which busy_timeout cannot retry, when another connection to the file (the object
 * store's, or another process's) wrote in between. `begin immediate` takes the write lock up front,
 * so competing writers wait their turn instead.
 *
 * Durability: a file in WAL mode commits with `synchronous=NORMAL`, and a query or transaction that
 * committed a write is answered only once `WalSync` has flushed the WAL. The flush runs after the
 * connection is released, so the next transaction proceeds while it runs, one flush covers many
 * commits, and the event loop never waits on the disk.
 */
class ImmediateTransactionSqliteDriver extends SqliteDriver {
  /** A write was committed during the current hold of the (single) connection. */
  private committed = false;

  constructor(
    config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
    private readonly statement: (sql: string) => SQLite.Statement,
    private readonly walSync: WalSync,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const result = await inner.executeQuery<R>(query);
        // Outside a transaction a writing statement commits by itself; `commit` ends one.
        if (
          !this.connection.inTransaction &&
          (query.sql === 'commit' || !this.statement(query.sql).readonly)
        ) {
          this.committed = true;
        }
        return result;
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async releaseConnection(): Promise<void> {
    const committed = this.committed;
    this.committed = false;
    await super.releaseConnection();
    if (committed) {
      await new Promise<void>((resolve, reject) =>
        this.walSync.afterCommit((error) => (error ? reject(error) : resolve())),
      );
    }
  }

  override async destroy(): Promise<void> {
    await this.walSync.drain();
    await super.destroy();
    this.walSync.close();
  }
}

/**
 * SQLite runs DDL inside transactions; Kysely's adapter declines only to stay conservative. Saying so
 * makes the migrator apply a batch in one immediate transaction: atomic, and serialised against another
 * process migrating the same file.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class DataPlaneSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
    private readonly statement: (sql: string) => SQLite.Statement,
    private readonly walSync: WalSync,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver(this.config, this.connection, this.statement, this.walSync);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * Opens the SQLite file (creating it and its directory when missing) with write-ahead logging, a
 * commit durable before it is answered (see `ImmediateTransactionSqliteDriver`) and a busy timeout.
 * The file may hold other owners' tables; nothing here touches them.
 */
export function openSqliteDialect(sqlitePath: string): Dialect {
  fs.mkdirSync(path.dirname(sqlitePath), { recursive: true });
  const connection = new SQLite(sqlitePath);
  let walPath: string | undefined;
  try {
    const journal = connection.pragma('journal_mode = WAL', { simple: true });
    walPath = journal === 'wal' && !connection.memory ? `${path.resolve(sqlitePath)}-wal` : undefined;
    connection.pragma(walPath === undefined ? 'synchronous = FULL' : 'synchronous = NORMAL');
    connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    connection.pragma('foreign_keys = ON');
  } catch (error) {
    connection.close();
    throw error;
  }
  const database = withStatementCache(connection);
  return new DataPlaneSqliteDialect({ database }, connection, database.prepare, new WalSync(walPath));
}
