import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type SqliteDatabase,
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
function withStatementCache(connection: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string) {
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
 */
class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
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
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver(this.config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * Opens the SQLite file (creating it and its directory when missing) with write-ahead logging, full
 * fsync on commit and a busy timeout. The file may hold other owners' tables; nothing here touches them.
 */
export function openSqliteDialect(sqlitePath: string): Dialect {
  fs.mkdirSync(path.dirname(sqlitePath), { recursive: true });
  const connection = new SQLite(sqlitePath);
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = FULL');
    connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    connection.pragma('foreign_keys = ON');
  } catch (error) {
    connection.close();
    throw error;
  }
  return new DataPlaneSqliteDialect({ database: withStatementCache(connection) });
}
